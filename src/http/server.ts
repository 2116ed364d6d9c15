import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import type { AppContext } from '../context.ts';
import { authenticateKey, type Principal } from '../domain/workspace/auth.ts';
import { atLeast } from '../domain/workspace/roles.ts';
import { findSite } from '../domain/sites/sites.ts';
import { ForbiddenError, MethodNotAllowedError, NotFoundError, SignedInOnlyError, ValidationError } from '../errors.ts';
import { bodyWasAbandoned, readJsonBody } from './body.ts';
import { createMetrics, type Metrics } from './prometheus.ts';
import { sendError, sendReply } from './respond.ts';
import { isSitePath, type Method, type Route } from './route.ts';
import { validate } from './validate.ts';

const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
const ID_PARAM = /^(id|[a-z]+Id)$/;
const MAX_ID = 2_147_483_647;

export interface HttpServer {
  server: http.Server;
  metrics: Metrics;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

function parseIds(params: Record<string, string | undefined>): Record<string, number> {
  const ids: Record<string, number> = {};
  for (const [name, value] of Object.entries(params)) {
    if (!ID_PARAM.test(name) || value === undefined) continue;
    const n = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
    // A malformed id names nothing, the same answer as an unknown one.
    if (!(n <= MAX_ID)) throw new NotFoundError(`No ${name === 'id' ? 'project' : name.replace(/Id$/, '')} with id ${value}`);
    ids[name] = n;
  }
  return ids;
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const all = url.searchParams.getAll(key);
    out[key] = all.length > 1 ? all : (all[0] ?? '');
  }
  return out;
}

/** CONTRACT.md "Variants": a field of a variant the deployment does not serve is invalid like any other. */
function refuseUnservedFields(route: Route, body: unknown, served: string): void {
  if (!route.variantFields || typeof body !== 'object' || body === null) return;
  const fields: Record<string, string> = {};
  for (const [field, variant] of Object.entries(route.variantFields)) {
    if (variant && !served.includes(variant) && (body as Record<string, unknown>)[field] !== undefined) fields[field] = `${field} is not available on this deployment`;
  }
  if (Object.keys(fields).length) throw new ValidationError(fields);
}

export function createHttpServer(ctx: AppContext, routes: (metrics: Metrics) => Route[]): HttpServer {
  const metrics = createMetrics();
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const route of routes(metrics)) {
    if (route.variant && !ctx.config.apiVariant.includes(route.variant)) continue;
    router.on(route.method, route.path, () => undefined, route);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string, state: { route: string; principal: Principal | null }): Promise<void> {
    const log = ctx.logger.child({ reqId: requestId });
    const method = (req.method ?? 'GET').toUpperCase() as Method;
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = router.find(method, url.pathname);
    if (!match) {
      const allow = METHODS.filter((m) => router.find(m, url.pathname));
      if (allow.length) throw new MethodNotAllowedError(allow);
      throw new NotFoundError(`No endpoint at ${method} ${url.pathname}`);
    }
    const route = match.store as Route;
    state.route = route.path;

    let principal: Principal | null = null;
    if (route.access !== 'public') {
      principal = await authenticateKey(ctx, bearer(req), ctx.clock.now());
      state.principal = principal;
      if (route.access === 'signed-in') throw new SignedInOnlyError();
    }
    const ids = parseIds(match.params);
    let site = null;
    if (principal) {
      if (ids.orgId !== undefined && ids.orgId !== principal.org.id) throw new NotFoundError(`No workspace with id ${ids.orgId}`);
      if (ids.id !== undefined && isSitePath(route.path)) site = await findSite(ctx.db, principal.org.id, ids.id);
      const needed = route.access as 'viewer' | 'member' | 'admin';
      if (!atLeast(principal.role, needed)) {
        throw new ForbiddenError(`This needs a key with ${needed} access or higher; this key has ${principal.role} access`);
      }
    }
    const query = route.query ? validate(route.query, queryObject(url), 'query') : undefined;
    const rawBody = route.body ? await readJsonBody(req) : undefined;
    const body = route.body ? validate(route.body, rawBody ?? {}, 'body') : undefined;
    refuseUnservedFields(route, body, ctx.config.apiVariant);

    const reply = await route.handler({
      ctx,
      principal,
      ids,
      site,
      body,
      query,
      req,
      log,
      requestId,
    });
    await sendReply(res, reply);
  }

  const server = http.createServer({ requestTimeout: 120_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    res.setHeader('X-Request-Id', requestId);
    const state: { route: string; principal: Principal | null } = { route: 'unmatched', principal: null };
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(req.method ?? 'GET', state.route, res.statusCode, seconds);
      ctx.logger.info(
        {
          reqId: requestId,
          method: req.method,
          path: (req.url ?? '').split('?')[0],
          route: state.route,
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
          orgId: state.principal?.org.id,
          keyId: state.principal?.keyId,
        },
        'request',
      );
    });
    dispatch(req, res, requestId, state).catch((err: unknown) => {
      if (bodyWasAbandoned(err)) res.setHeader('Connection', 'close');
      sendError(res, err, ctx.logger.child({ reqId: requestId }));
    });
  });

  return {
    server,
    metrics,
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          const addr = server.address();
          const boundPort = typeof addr === 'object' && addr ? addr.port : port;
          resolve(`http://${host.includes(':') ? `[${host}]` : host}:${boundPort}`);
        });
      });
    },
    /** Stops accepting, lets in-flight requests finish (10 s at most), then closes. */
    close() {
      return new Promise((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
