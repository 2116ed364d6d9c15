import { z } from 'zod';
import type { Route } from './route.ts';

type JsonSchema = Record<string, unknown>;

function schemaOf(s: z.ZodType): JsonSchema {
  return z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
}

const errorEnvelope = {
  type: 'object',
  required: ['error', 'fields'],
  properties: { error: { type: 'string' }, fields: { type: ['object', 'null'], additionalProperties: { type: 'string' } } },
};

const errorResponses: Record<string, string> = {
  '400': 'Refused: a limit is reached or the request cannot be carried out (message says which)',
  '401': 'No key, a malformed key or a revoked key',
  '403': 'Access level too low, or the action needs a signed-in person',
  '404': 'Not found, or belongs to another workspace',
  '409': 'Duplicate',
  '413': 'Body over 4 MB',
  '415': 'Body without a JSON content type',
  '422': 'Validation failed; `fields` names each wrong field',
  '429': 'Too many requests; see Retry-After',
};

/** OpenAPI 3.1 document generated from the route table, so it cannot drift from the routes. */
export function buildOpenApi(routes: Route[], options: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{rest}');
    const parameters: unknown[] = [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: m[1] === 'token' || m[1] === 'rest' ? { type: 'string' } : { type: 'integer', minimum: 1 },
    }));
    if (route.query) {
      const q = schemaOf(route.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    const responses: Record<string, unknown> = {
      [route.responds === 'no content' ? '204' : '200']: { description: route.responds && route.responds !== 'no content' ? route.responds : 'OK' },
    };
    for (const [status, description] of Object.entries(errorResponses)) {
      responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    const op: Record<string, unknown> = {
      summary: route.summary,
      operationId: `${route.method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      tags: [route.path.split('/')[1] ?? 'root'],
      parameters,
      responses,
      'x-access': route.access,
      ...(route.variant && { 'x-variant': route.variant }),
      security: route.access === 'public' ? [] : [{ bearer: [] }],
    };
    if (route.body) {
      const media = { schema: schemaOf(route.body), ...(route.example !== undefined && { example: route.example }) };
      op.requestBody = { required: false, content: { 'application/json': media } };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sightline API',
      version: options.version,
      description: 'How AI assistants answer questions about a brand. Send `Authorization: Bearer slk_...` on every call except health, metrics and this document.',
    },
    servers: [{ url: options.serverUrl }],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Workspace API key, `slk_` + 40 characters' } },
      schemas: { Error: errorEnvelope },
    },
    paths,
  };
}
