import { randomUUID } from 'node:crypto';
import { MAX_ID } from '../domain/common/index.ts';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';
import type { AppContext } from '../context.ts';
import type { Logger } from '../logger.ts';
import { authenticateKey, type Principal, dropCachedKeysOnChange } from '../domain/workspace/index.ts';
import { MethodNotAllowedError, NotFoundError, SignedInOnlyError } from '../errors.ts';
import { bearer } from './bearer.ts';
import { registerOperatorMetrics } from '../telemetry/operator-metrics.ts';
import { tracingHooks } from '../telemetry/state.ts';
import { ADMIN_QUEUES_PATH, adminQueues } from './admin-queues.ts';
import { bodyWasAbandoned, readJsonBody, readRawBody } from './body.ts';
import { authorize, refuseUnservedFields } from './checks.ts';
import { createMetrics, type Metrics } from './prometheus.ts';
import { sendError, sendReply } from './respond.ts';
import type { Method, Route } from './route.ts';
import { parseTarget } from './target.ts';
import { validate } from './validate.ts';

const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
const ID_PARAM = /^(id|[a-z]+Id)$/;

/** What the access log and the metrics say of a request, filled in as it is handled. */
interface RequestState {
  route: string;
  /** The path as logged (routeLogPath, sanitisedLogPath); null when the target could not be read. */
  path: string | null;
  principal: Principal | null;
}

export interface HttpServer {
  server: http.Server;
  metrics: Metrics;
  listen(port: number, host: string): Promise<string>;
  close(): Promise<void>;
}

/** Path parameters that are not ids (`:token`), as sent; the route decides what a well-formed one is. */
function textParams(params: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in params) {
    const value = params[name];
    if (!ID_PARAM.test(name) && value !== undefined) out[name] = value;
  }
  return out;
}

function parseIds(params: Record<string, string | undefined>): Record<string, number> {
  const ids: Record<string, number> = {};
  for (const name in params) {
    const value = params[name];
    if (!ID_PARAM.test(name) || value === undefined) continue;
    const n = /^[1-9]\d{0,9}$/.test(value) ? Number(value) : NaN;
    // A malformed id names nothing, the same answer as an unknown one.
    if (!(n <= MAX_ID)) throw new NotFoundError(`No ${name === 'id' ? 'project' : name.replace(/Id$/, '')} with id ${value.length > 40 ? `${value.slice(0, 40)}...` : value}`);
    ids[name] = n;
  }
  return ids;
}

/** Segments a logged path keeps: at most this many, then `/...`. */
const LOGGED_SEGMENTS = 12;
const NUMERIC_SEGMENT = /^\d{1,10}$/;

/**
 * The path the access log names for a matched route: its template with the
 * ids filled in (`/projects/12/prompts/7`); every other parameter (a share or
 * invitation token, the rest of an `/auth/*` path) stays a placeholder, so a
 * secret in a path never reaches the logs. The query is never logged.
 */
function routeLogPath(template: string, params: Record<string, string | undefined>): string {
  return template.replace(/:([A-Za-z]+)/g, (placeholder, name: string) => {
    const value = params[name];
    return ID_PARAM.test(name) && value !== undefined && NUMERIC_SEGMENT.test(value) ? value : placeholder;
  });
}

/**
 * The path the access log names when no route matched (404, 405): a typo of
 * a share or invitation path may carry its token, and a client may send
 * anything, so only segments that are words of the route table (`projects`,
 * `share`) or numbers are kept; every other segment is `*`, and past 12
 * segments the rest is `...`. `/shares/9f3kQ...` logs as `/shares/*`: enough
 * to see which kind of path clients miss, never what they sent in it.
 */
function sanitisedLogPath(path: string, words: ReadonlySet<string>): string {
  const segments = path.split('/').slice(1);
  const shown = segments.slice(0, LOGGED_SEGMENTS).map((segment) => (segment === '' || words.has(segment) || NUMERIC_SEGMENT.test(segment) ? segment : '*'));
  return `/${shown.join('/')}${segments.length > LOGGED_SEGMENTS ? '/...' : ''}`;
}

function requestIdOf(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && /^[\w.:-]{1,100}$/.test(given) ? given : randomUUID();
}

function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(params.keys())) {
    const all = params.getAll(key);
    out[key] = all.length > 1 ? all : (all[0] ?? '');
  }
  return out;
}

export function createHttpServer(ctx: AppContext, routes: (metrics: Metrics) => Route[]): HttpServer {
  const metrics = createMetrics();
  // Queues, workers, scans, money and provider calls for operators (src/telemetry/operator-metrics.ts).
  registerOperatorMetrics(metrics.registry, ctx);
  // The queue dashboard, only with OPERATOR_TOKEN set.
  const admin = adminQueues(ctx);
  // Cached key look-ups are dropped as soon as a change is announced.
  const stopKeyChanges = dropCachedKeysOnChange(ctx);
  // Long path parameters (a pasted 10 KB share token) reach their route and its 404 rather than missing every route.
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 16_384 });
  // The fixed words of every path, which a logged unmatched path may show (sanitisedLogPath).
  const pathWords = new Set<string>();
  for (const route of routes(metrics)) {
    if (route.variant && !ctx.config.apiVariant.includes(route.variant)) continue;
    router.on(route.method, route.path, () => undefined, route);
    for (const segment of route.path.split('/')) if (segment && !segment.startsWith(':') && segment !== '*') pathWords.add(segment);
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse, requestId: string, state: RequestState): Promise<void> {
    const method = (req.method ?? 'GET').toUpperCase() as Method;
    const { path, routable, query: queryParams } = parseTarget(req.url ?? '');
    const match = router.find(method, routable);
    state.path = match ? routeLogPath((match.store as Route).path, match.params) : sanitisedLogPath(path, pathWords);
    if (!match) {
      const allow = METHODS.filter((m) => router.find(m, routable));
      if (allow.length) throw new MethodNotAllowedError(allow);
      throw new NotFoundError(`No endpoint at ${method} ${path.length > 200 ? `${path.slice(0, 200)}...` : path}`);
    }
    const route = match.store as Route;
    state.route = route.path;
    tracingHooks()?.nameRequest(route.path);

    let principal: Principal | null = null;
    if (route.access !== 'public') {
      principal = await authenticateKey(ctx, bearer(req), ctx.clock.now());
      state.principal = principal;
      if (route.access === 'signed-in') throw new SignedInOnlyError();
    }
    const ids = parseIds(match.params);
    const site = principal ? await authorize(ctx, route, principal, ids) : null;
    const query = route.query ? validate(route.query, queryObject(queryParams()), 'query') : undefined;
    // A route's non-JSON body type (a gzip file) reaches its handler as bytes.
    const raw = route.rawBody && req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === route.rawBody.contentType ? await readRawBody(req) : undefined;
    const rawBody = route.body && !raw ? await readJsonBody(req) : undefined;
    const body = route.body && !raw ? validate(route.body, rawBody ?? {}, 'body') : undefined;
    refuseUnservedFields(route, body, ctx.config.apiVariant);

    // Most handlers never log: their child logger is made on first use.
    let log: Logger | undefined;
    const reply = await route.handler({
      ctx,
      principal,
      ids,
      params: textParams(match.params),
      site,
      body,
      query,
      req,
      get log() {
        return (log ??= ctx.logger.child({ reqId: requestId }));
      },
      requestId,
      raw,
    });
    await sendReply(res, requestId, reply);
  }

  /** The queue dashboard is served beside the route table, not in it: it is no operation of the API (nor of its OpenAPI document or MCP tools). */
  function serve(req: IncomingMessage, res: ServerResponse, requestId: string, state: RequestState): Promise<void> {
    if (admin?.owns(req.url ?? '')) {
      state.route = ADMIN_QUEUES_PATH;
      state.path = ADMIN_QUEUES_PATH;
      tracingHooks()?.nameRequest(ADMIN_QUEUES_PATH);
      return admin.handle(req, res, requestId);
    }
    return dispatch(req, res, requestId, state);
  }

  const server = http.createServer({ requestTimeout: 120_000, headersTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req);
    const state: RequestState = { route: 'unmatched', path: null, principal: null };
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      metrics.observe(req.method ?? 'GET', state.route, res.statusCode, seconds);
      ctx.logger.info(
        {
          reqId: requestId,
          method: req.method,
          path: state.path,
          route: state.route,
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
          orgId: state.principal?.org.id,
          keyId: state.principal?.keyId,
        },
        'request',
      );
    });
    serve(req, res, requestId, state).catch((err: unknown) => {
      if (bodyWasAbandoned(err)) res.setHeader('Connection', 'close');
      sendError(res, requestId, err, ctx.logger.child({ reqId: requestId }));
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
    async close() {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      await stopKeyChanges();
    },
  };
}
