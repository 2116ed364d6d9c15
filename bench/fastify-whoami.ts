/**
 * bench/http's anchor: `GET /whoami` on fastify 5, written the way fastify
 * is meant to be used, doing the work Sightline's request path does: the
 * bearer key from a one-second in-process cache with a Postgres fallback
 * (the same prepared look-up), the role check, the same JSON (serialised
 * from a response schema, as fastify does), one pino access line, a
 * prom-client counter and histogram, and `X-Request-Id` (the caller's when
 * well-formed, else a random UUID). Run by bench/http.ts as a child process:
 * `LOG_WRITER=fastify` gives fastify its own logger setup (`logger:` options,
 * pino's own destination), `LOG_WRITER=sightline` hands it Sightline's logger
 * (src/logger.ts, lines written in blocks). fastify is a devDependency for
 * this file only; the service itself stays on node:http.
 */
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pg from 'pg';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { createLogger } from '../src/logger.ts';

type KeyRole = 'viewer' | 'member' | 'admin';
type Role = KeyRole | 'owner';
const RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };

interface Principal {
  kind: 'token';
  keyId: number;
  keyName: string;
  role: KeyRole;
  user: { id: number; name: string; email: string };
  org: { id: number; name: string; plan: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const KEY_LOOKUP_SQL = `
  SELECT k.id AS "keyId", k.name AS "keyName", k.role AS "keyRole", k.revoked_at AS "revokedAt",
         m.role AS "creatorRole", u.id AS "userId", u.name AS "userName", u.email AS "userEmail",
         o.id AS "orgId", o.name AS "orgName", o.plan AS "orgPlan"
    FROM api_keys k
    JOIN users u ON u.id = k.created_by
    JOIN orgs o ON o.id = k.org_id
    LEFT JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.created_by
   WHERE k.key_hash = $1`;

interface KeyRow {
  keyId: number;
  keyName: string;
  keyRole: KeyRole;
  revokedAt: Date | null;
  creatorRole: Role | null;
  userId: number;
  userName: string;
  userEmail: string;
  orgId: number;
  orgName: string;
  orgPlan: string;
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 2 });
const cache = new Map<string, { expires: number; principal: Principal }>();

async function lookUp(key: string): Promise<Principal | null> {
  const hit = cache.get(key);
  const now = performance.now();
  if (hit && hit.expires > now) return hit.principal;
  const { rows } = await pool.query<KeyRow>({
    name: 'auth-key-lookup',
    text: KEY_LOOKUP_SQL,
    values: [createHash('sha256').update(key).digest('hex')],
  });
  const row = rows[0];
  if (!row || row.revokedAt || !row.creatorRole) {
    cache.delete(key);
    return null;
  }
  const creator: KeyRole = row.creatorRole === 'owner' ? 'admin' : row.creatorRole;
  const principal: Principal = {
    kind: 'token',
    keyId: row.keyId,
    keyName: row.keyName,
    role: RANK[row.keyRole] <= RANK[creator] ? row.keyRole : creator,
    user: { id: row.userId, name: row.userName, email: row.userEmail },
    org: { id: row.orgId, name: row.orgName, plan: row.orgPlan },
  };
  cache.set(key, { expires: now + 1_000, principal });
  return principal;
}

const registry = new Registry();
collectDefaultMetrics({ register: registry });
const labelNames = ['method', 'route', 'status'] as const;
const requests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests by route and status',
  labelNames,
  registers: [registry],
});
const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

const REQUEST_ID = /^[\w.:-]{1,100}$/;
const redact = {
  paths: ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'token'],
  censor: '[redacted]',
};
const logOptions = { level: 'info', name: 'sightline', redact, base: { pid: process.pid } };

/** fastify's one access line a request, with the fields of Sightline's (its "incoming request" line is not written). */
class AccessLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const route = request.routeOptions.url ?? 'unmatched';
    request.log[error ? 'error' : 'info'](
      {
        method: request.method,
        path: route,
        route,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        orgId: request.principal?.org.id,
        keyId: request.principal?.keyId,
        ...(error && { err: error }),
      },
      'request',
    );
  }
}

const app = Fastify({
  ...(process.env.LOG_WRITER === 'sightline' ? { loggerInstance: createLogger('info') } : { logger: logOptions }),
  logController: new AccessLog({ requestIdLogLabel: 'reqId' }),
  genReqId: (req) => {
    const given = req.headers['x-request-id'];
    return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  },
});

app.decorateRequest('principal', null);

app.addHook('onRequest', async (request, reply) => {
  reply.header('x-request-id', request.id);
});

app.addHook('onResponse', async (request, reply) => {
  const labels = {
    method: request.method,
    route: request.routeOptions.url ?? 'unmatched',
    status: String(reply.statusCode),
  };
  requests.inc(labels);
  duration.observe(labels, reply.elapsedTime / 1000);
});

/** A keyed route's check, as a preHandler: the key's principal, then its role against the route's lowest. */
function needs(role: KeyRole) {
  return async (request: FastifyRequest) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const principal = match?.[1] ? await lookUp(match[1]) : null;
    if (!principal) throw Object.assign(new Error('A valid API key is needed'), { statusCode: 401 });
    request.principal = principal;
    if (RANK[principal.role] < RANK[role])
      throw Object.assign(new Error(`This needs a key with ${role} access or higher`), { statusCode: 403 });
  };
}

const idName = { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } } } as const;
const whoamiSchema = {
  type: 'object',
  properties: {
    kind: { type: 'string' },
    tokenName: { type: 'string' },
    user: { type: 'object', properties: { ...idName.properties, email: { type: 'string' } } },
    org: { type: 'object', properties: { ...idName.properties, plan: { type: 'string' } } },
    role: { type: 'string' },
  },
} as const;

app.get('/whoami', { preHandler: needs('viewer'), schema: { response: { 200: whoamiSchema } } }, async (request) => {
  const p = request.principal!;
  return { kind: p.kind, tokenName: p.keyName, user: p.user, org: p.org, role: p.role };
});

app.get('/metrics', async (_request, reply) => {
  reply.type(registry.contentType);
  return registry.metrics();
});

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ready');

// A clean exit on SIGTERM, so that `node --cpu-prof` writes its profile.
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
