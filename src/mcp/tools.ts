import { z } from 'zod';
import { idSchema } from '../domain/common/index.ts';
import type { Route } from '../http/route.ts';

/**
 * The MCP tools: each is one route of the HTTP route table that names its
 * tool (`mcp: { tool, lead }` in its definition), and is that route in every
 * other respect. Its input schema is the route's path ids plus the JSON Schema
 * of its query or body schema (made by the converter that writes the OpenAPI
 * document), its role and variant are the route's, and a call runs the
 * route's own handler (one domain call) after the same checks. A test walks
 * the route table, so a keyed read route without a tool (or `mcp: { none }`
 * saying why) fails the build.
 */

type JsonSchema = Record<string, unknown>;

/** A path id as a tool argument: `:id` is the project, named so; `orgId` defaults to the key's workspace. */
export interface IdArg {
  arg: string;
  param: string;
  optional: boolean;
}

export interface Tool {
  name: string;
  route: Route;
  description: string;
  ids: IdArg[];
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[] };
  readOnly: boolean;
}

const ID_SCHEMA = z.toJSONSchema(idSchema('id'), { target: 'draft-2020-12' }) as JsonSchema;
delete ID_SCHEMA.$schema;

function idArgs(path: string): IdArg[] {
  return [...path.matchAll(/:([A-Za-z]+)/g)].map((m) => {
    const param = m[1] as string;
    if (param === 'id') return { arg: 'projectId', param, optional: false };
    return { arg: param, param, optional: param === 'orgId' };
  });
}

function inputSchema(route: Route, ids: IdArg[]): Tool['inputSchema'] {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const id of ids) {
    properties[id.arg] = {
      ...ID_SCHEMA,
      description:
        id.param === 'orgId'
          ? 'workspace id (from whoami); defaults to this key’s workspace'
          : id.param === 'id'
            ? 'project (site) id, from list_projects'
            : `${id.param.replace(/Id$/, '')} id`,
    };
    if (!id.optional) required.push(id.arg);
  }
  const input = route.query ?? route.body;
  if (input) {
    const schema = z.toJSONSchema(input, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as {
      properties?: Record<string, JsonSchema>;
      required?: string[];
    };
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      if (properties[name])
        throw new Error(`MCP tool for ${route.method} ${route.path}: input field ${name} clashes with a path id`);
      properties[name] = prop;
    }
    required.push(...(schema.required ?? []));
  }
  return { type: 'object', properties, ...(required.length && { required }) };
}

const ROLE_NOTE: Record<string, string> = {
  member: ' Needs a key with member access or higher.',
  admin: ' Needs a key with admin access.',
};

/** The tools a deployment serves (a tool of a variant it does not serve is left out, like its route). */
export function buildTools(routes: readonly Route[], servedVariant: string): Tool[] {
  return routes.flatMap((route) => {
    if (!route.mcp || !('tool' in route.mcp)) return [];
    if (route.variant && !servedVariant.includes(route.variant)) return [];
    const { tool: name, lead } = route.mcp;
    const ids = idArgs(route.path);
    const description = `${lead ? `${lead} ` : ''}${route.summary}.${ROLE_NOTE[route.access] ?? ''} Same as ${route.method} ${route.path}.`;
    return [
      {
        name,
        route,
        description,
        ids,
        inputSchema: inputSchema(route, ids),
        readOnly: route.method === 'GET' || name === 'estimate_scan',
      },
    ];
  });
}
