import { z } from 'zod';
import { MAX_ID, errorEnvelope, responseSchemas } from '../domain/common/index.ts';
import { EVENT_BODIES, EVENT_TYPES } from '../domain/webhooks/index.ts';
import { TAGS } from './tags.ts';
import type { ResponseSpec, Route } from './route.ts';

type JsonSchema = Record<string, unknown>;

const SAFE_INTEGER = Number.MAX_SAFE_INTEGER;
const ref = (id: string) => `#/components/schemas/${id}`;

/** Leaves out what only restates a format (the ISO patterns) or the safe-integer range zod gives every integer. */
function tidy({ jsonSchema }: { jsonSchema: JsonSchema }): void {
  if (jsonSchema.format === 'date-time' || jsonSchema.format === 'date') delete jsonSchema.pattern;
  if (jsonSchema.maximum === SAFE_INTEGER) delete jsonSchema.maximum;
  if (jsonSchema.minimum === -SAFE_INTEGER) delete jsonSchema.minimum;
}

const options = { io: 'input', unrepresentable: 'any', target: 'draft-2020-12', override: tidy } as const;

/** A request body or query: inline, as clients send it. */
function inputSchema(s: z.ZodType): JsonSchema {
  const schema = z.toJSONSchema(s, options) as JsonSchema;
  delete schema.$schema;
  return schema;
}

let components: Record<string, JsonSchema> | null = null;

/** Every named response schema (src/domain/<feature>/responses.ts), referring to each other by `$ref`. */
function namedSchemas(): Record<string, JsonSchema> {
  if (components) return components;
  const { schemas } = z.toJSONSchema(responseSchemas, { ...options, uri: ref }) as {
    schemas: Record<string, JsonSchema>;
  };
  for (const schema of Object.values(schemas)) {
    delete schema.$schema;
    delete schema.$id;
  }
  return (components = schemas);
}

function schemaRef(schema: z.ZodType, where: string): JsonSchema {
  const meta = responseSchemas.get(schema);
  if (!meta)
    throw new Error(
      `The response schema of ${where} has no name: declare it with named() in src/domain/<feature>/responses.ts`,
    );
  return { $ref: ref(meta.id) };
}

const errorContent = { 'application/json': { schema: schemaRef(errorEnvelope, 'the error envelope') } };

const RETRY_AFTER = {
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
};

function refusal(status: number, description: string): JsonSchema {
  return { description, content: errorContent, ...(status === 429 && { headers: RETRY_AFTER }) };
}

function response(status: number, spec: ResponseSpec, where: string): JsonSchema {
  if (typeof spec === 'string') return refusal(status, spec);
  if (spec instanceof z.ZodType) {
    return {
      description: responseSchemas.get(spec)?.description ?? 'OK',
      content: { 'application/json': { schema: schemaRef(spec, where) } },
    };
  }
  if (!spec.contentType) return { description: spec.description };
  const unnamed =
    spec.contentType === 'application/json' ? { type: 'object', additionalProperties: true } : { type: 'string' };
  return {
    description: spec.description,
    content: { [spec.contentType]: { schema: spec.schema ? schemaRef(spec.schema, where) : unnamed } },
  };
}

/** The refusals a route can answer whatever it does, from what it takes: a key, path ids, a body, a query. */
function sharedRefusals(route: Route, hasParams: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (route.body)
    out[400] = 'Malformed JSON, or the request cannot be carried out (a limit is reached...: the message says why)';
  if (route.access !== 'public') out[401] = 'No key, a malformed key or a revoked key';
  if (route.access === 'member' || route.access === 'admin') out[403] = `The key’s access is below ${route.access}`;
  if (hasParams) out[404] = 'Not found, or it belongs to another workspace';
  if (route.body) {
    out[413] = 'Body over 4 MB';
    out[415] = route.rawBody
      ? `Body neither JSON nor ${route.rawBody.contentType}`
      : 'Body without a JSON content type';
  }
  if (route.body || route.query)
    out[422] = `Validation failed; \`fields\` names each wrong ${route.body ? 'field' : 'query parameter'}`;
  return out;
}

/** Whether the document shows a route: signed-in-only actions (no key can call them) and routes that never succeed are left out. */
export function documented(route: Route): boolean {
  return route.access !== 'signed-in' && !(route.responses && Object.keys(route.responses).length === 0);
}

/** camelCase of method and path, for a route the operations table does not name. */
function derivedOperationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

function reachableSchemas(from: unknown, all: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/schemas/')) {
          const name = value.slice('#/components/schemas/'.length);
          if (!seen.has(name) && all[name]) {
            seen.add(name);
            visit(all[name]);
          }
        } else visit(value);
      }
    }
  };
  visit(from);
  return Object.fromEntries(Object.entries(all).filter(([name]) => seen.has(name)));
}

const WEBHOOK_HEADERS = [
  {
    name: 'webhook-id',
    description: 'The event’s id: the same on every retry and replay, so receivers can drop repeats',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    description: 'When this attempt was sent, in seconds since the epoch',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-signature',
    description:
      '`v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret’s key, one per valid secret, space-separated (Standard Webhooks)',
    schema: { type: 'string' },
  },
].map((h) => ({ ...h, in: 'header', required: true }));

/**
 * The `webhooks` section (OpenAPI 3.1): what Sightline POSTs to a webhook
 * for each event type (standard format), from the event schemas
 * (src/domain/webhooks/event-types.ts), so a client can generate typed receivers.
 */
function webhookOperations(): Record<string, unknown> {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: `${type}, sent to webhooks that receive it`,
          operationId: `on${type.replace(/(^|[._])([a-z])/g, (_, _sep: string, c: string) => c.toUpperCase())}`,
          tags: ['Webhooks'],
          // Receivers check the signature headers, not a bearer key.
          security: [],
          parameters: WEBHOOK_HEADERS,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: schemaRef(EVENT_BODIES[type], `the ${type} event`) } },
          },
          responses: {
            '200': { description: 'Delivered (any 2xx)' },
            '410': { description: 'Gone: the webhook is disabled at once' },
            default: { description: 'Anything else, or no answer within 10 s: retried with backoff for about a day' },
          },
        },
      },
    ]),
  );
}

/** OpenAPI 3.1 document generated from the route table, so it cannot drift from the routes. */
export function buildOpenApi(routes: Route[], options: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.filter(documented)) {
    const key = `${route.method} ${route.path}`;
    const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{rest}');
    const parameters: unknown[] = [...path.matchAll(/\{([A-Za-z]+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema:
        m[1] === 'token' || m[1] === 'rest' ? { type: 'string' } : { type: 'integer', minimum: 1, maximum: MAX_ID },
    }));
    const hasParams = parameters.length > 0;
    if (route.query) {
      const q = inputSchema(route.query) as { properties?: Record<string, JsonSchema>; required?: string[] };
      for (const [name, schema] of Object.entries(q.properties ?? {})) {
        parameters.push({ name, in: 'query', required: q.required?.includes(name) ?? false, schema });
      }
    }
    // What the route declares (its own wording of a refusal wins), then the refusals every such route shares.
    const responses: Record<string, unknown> = {};
    for (const [status, spec] of Object.entries(route.responses ?? { 200: { description: 'OK' } }))
      responses[status] = response(Number(status), spec, key);
    for (const [status, description] of Object.entries(sharedRefusals(route, hasParams)))
      responses[status] ??= refusal(Number(status), description);
    responses.default = refusal(500, 'Unexpected error (500), or PostgreSQL or Redis unavailable (503)');
    const operationId = route.operationId ?? derivedOperationId(route.method, path);
    const tag = route.tag ?? 'System';
    const op: Record<string, unknown> = {
      summary: route.summary,
      operationId,
      tags: [tag],
      parameters,
      responses: Object.fromEntries(
        Object.entries(responses).sort(([a], [b]) =>
          a === 'default' ? 1 : b === 'default' ? -1 : Number(a) - Number(b),
        ),
      ),
      'x-access': route.access,
      ...(route.variant && { 'x-variant': route.variant }),
      security: route.access === 'public' ? [] : [{ bearer: [] }],
    };
    if (route.body) {
      const media = { schema: inputSchema(route.body), ...(route.example !== undefined && { example: route.example }) };
      // The server reads an empty body as {}: the body is required only when {} is not a valid one.
      op.requestBody = {
        required: !route.body.safeParse({}).success,
        content: {
          'application/json': media,
          ...(route.rawBody && {
            [route.rawBody.contentType]: {
              schema: { type: 'string', format: 'binary', description: route.rawBody.description },
            },
          }),
        },
      };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = op;
  }
  const webhooks = webhookOperations();
  const used = new Set([
    ...Object.values(paths).flatMap((ops) => Object.values(ops).flatMap((op) => (op as { tags: string[] }).tags)),
    'Webhooks',
  ]);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sightline API',
      version: options.version,
      description:
        'How AI assistants answer questions about a brand. Send `Authorization: Bearer slk_...` on every call except health, metrics, this document and shared report pages. Errors share one envelope, `{"error": string, "fields": object|null}`.',
      // Not open source: the name says so; there is no SPDX identifier or public licence text to point to.
      license: { name: 'Proprietary, all rights reserved' },
    },
    servers: [{ url: options.serverUrl }],
    tags: TAGS.filter((t) => used.has(t.name)).map((t) => ({ name: t.name, description: t.description })),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Workspace API key, `slk_` + 40 characters' },
      },
      schemas: reachableSchemas({ paths, webhooks }, namedSchemas()),
    },
    paths,
    webhooks,
  };
}
