import { randomUUID } from 'node:crypto';
import { MAX_ID } from '../domain/common/index.ts';
import http, { type IncomingMessage } from 'node:http';
import FindMyWay from 'find-my-way';
import type { AppContext } from '../context.ts';
import type { SiteRow } from '../db/schema.ts';
import { accessLog, type Logger } from '../logger.ts';
import { authenticateKey, cachedPrincipal, type Principal, dropCachedKeysOnChange } from '../domain/orgs/index.ts';
import { MethodNotAllowedError, NotFoundError, SignedInOnlyError } from '../errors.ts';
import { bearer } from './bearer.ts';
import { registerOperatorMetrics } from '../telemetry/operator-metrics.ts';
import { tracingHooks } from '../telemetry/tracing-hooks.ts';
import { ADMIN_QUEUES_PATH, adminQueues } from './admin-queues.ts';
import { bodyWasAbandoned, readJsonBody, readRawBody } from './body.ts';
import { authorize, checkRole, checkOrg, needsSite, refuseUnservedFields } from './route-checks.ts';
import { createMetrics, type Metrics } from './prometheus.ts';
import { sendError, sendReply } from './respond.ts';
import type { Method, Route, ServerInput } from './route.ts';
import { parseTarget, type Target } from './target.ts';
import { validate } from './validate.ts';

const METHODS: Method[] = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'];
const ID_PARAM = /^(id|[a-z]+Id)$/;

/**
 * The response of each request, carrying what the access log and the
 * metrics say of it, filled in as it is handled: fields of the response
 * object itself (node:http's `ServerResponse` option) rather than a state
 * object and closures made per request (bench/http).
 */
class TrackedResponse extends http.ServerResponse {
  requestId = '';
  /** performance.now() when the request arrived. */
  startedAt = 0;
  routeName = 'unmatched';
  /** The path as logged (routeLogPath, sanitisedLogPath); null when the target could not be read. */
  logPath: string | null = null;
  principal: Principal | null = null;
}

export interface HttpServer {
  server: http.Server<typeof IncomingMessage, typeof TrackedResponse>;
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
    if (!(n <= MAX_ID))
      throw new NotFoundError(
        `No ${name === 'id' ? 'project' : name.replace(/Id$/, '')} with id ${value.length > 40 ? `${value.slice(0, 40)}...` : value}`,
      );
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
  if (!template.includes(':')) return template;
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
  const shown = segments
    .slice(0, LOGGED_SEGMENTS)
    .map((segment) => (segment === '' || words.has(segment) || NUMERIC_SEGMENT.test(segment) ? segment : '*'));
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

type Params = Record<string, string | undefined>;

/**
 * What a handler is given. A class, so its child logger can be made on first
 * use (most handlers never log) from a getter on the prototype: an object
 * literal with a getter was the costliest line of a request (bench/http).
 */
class Input implements ServerInput {
  readonly ctx: AppContext;
  readonly principal: Principal | null;
  readonly ids: Record<string, number>;
  readonly params: Record<string, string>;
  readonly site: SiteRow | null;
  readonly body: unknown;
  readonly query: unknown;
  readonly req: IncomingMessage;
  readonly requestId: string;
  readonly raw: Buffer | undefined;
  #log: Logger | undefined;
  constructor(
    ctx: AppContext,
    principal: Principal | null,
    ids: Record<string, number>,
    params: Record<string, string>,
    site: SiteRow | null,
    body: unknown,
    query: unknown,
    req: IncomingMessage,
    requestId: string,
    raw: Buffer | undefined,
  ) {
    this.ctx = ctx;
    this.principal = principal;
    this.ids = ids;
    this.params = params;
    this.site = site;
    this.body = body;
    this.query = query;
    this.req = req;
    this.requestId = requestId;
    this.raw = raw;
  }
  get log(): Logger {
    return (this.#log ??= this.ctx.logger.child({ reqId: this.requestId }));
  }
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
    for (const segment of route.path.split('/'))
      if (segment && !segment.startsWith(':') && segment !== '*') pathWords.add(segment);
  }

  /**
   * The route's work, in one synchronous pass unless something has to be
   * waited for (a key look-up, a site, a body, an async handler, a stream):
   * a promise only then, so a cached key's GET costs no promise tick.
   */
  function dispatch(req: IncomingMessage, res: TrackedResponse): Promise<void> | undefined {
    const method = (req.method ?? 'GET').toUpperCase() as Method;
    const target = parseTarget(req.url ?? '');
    const match = router.find(method, target.routable);
    if (!match) {
      res.logPath = sanitisedLogPath(target.path, pathWords);
      const allow = METHODS.filter((m) => router.find(m, target.routable));
      if (allow.length) throw new MethodNotAllowedError(allow);
      throw new NotFoundError(
        `No endpoint at ${method} ${target.path.length > 200 ? `${target.path.slice(0, 200)}...` : target.path}`,
      );
    }
    const route = match.store as Route;
    res.logPath = routeLogPath(route.path, match.params);
    res.routeName = route.path;
    tracingHooks()?.nameRequest(route.path);
    if (route.access === 'public') return authorized(req, res, route, target, match.params, null);
    const key = bearer(req);
    const now = ctx.clock.now();
    const cached = cachedPrincipal(ctx, key, now);
    if (cached) return authorized(req, res, route, target, match.params, cached);
    return authenticateKey(ctx, key, now).then((principal) =>
      authorized(req, res, route, target, match.params, principal),
    );
  }

  function authorized(
    req: IncomingMessage,
    res: TrackedResponse,
    route: Route,
    target: Target,
    params: Params,
    principal: Principal | null,
  ): Promise<void> | undefined {
    res.principal = principal;
    if (principal && route.access === 'signed-in') throw new SignedInOnlyError();
    const ids = parseIds(params);
    if (!principal) return withSite(req, res, route, target, params, null, ids, null);
    // authorize's checks, without a promise where no site is looked up.
    if (!needsSite(route, ids)) {
      checkOrg(principal, ids);
      checkRole(route, principal);
      return withSite(req, res, route, target, params, principal, ids, null);
    }
    return authorize(ctx, route, principal, ids).then((site) =>
      withSite(req, res, route, target, params, principal, ids, site),
    );
  }

  function withSite(
    req: IncomingMessage,
    res: TrackedResponse,
    route: Route,
    target: Target,
    params: Params,
    principal: Principal | null,
    ids: Record<string, number>,
    site: SiteRow | null,
  ): Promise<void> | undefined {
    const query = route.query ? validate(route.query, queryObject(target.query()), 'query') : undefined;
    if (!route.body && !route.rawBody)
      return handle(
        req,
        res,
        route,
        new Input(ctx, principal, ids, textParams(params), site, undefined, query, req, res.requestId, undefined),
      );
    return readBody(req, route).then(({ body, raw }) => {
      refuseUnservedFields(route, body, ctx.config.apiVariant);
      return handle(
        req,
        res,
        route,
        new Input(ctx, principal, ids, textParams(params), site, body, query, req, res.requestId, raw),
      );
    });
  }

  async function readBody(req: IncomingMessage, route: Route): Promise<{ body: unknown; raw: Buffer | undefined }> {
    // A route's non-JSON body type (a gzip file) reaches its handler as bytes.
    const raw =
      route.rawBody && req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() === route.rawBody.contentType
        ? await readRawBody(req)
        : undefined;
    const rawBody = route.body && !raw ? await readJsonBody(req) : undefined;
    const body = route.body && !raw ? validate(route.body, rawBody ?? {}, 'body') : undefined;
    return { body, raw };
  }

  function handle(req: IncomingMessage, res: TrackedResponse, route: Route, input: Input): Promise<void> | undefined {
    const reply = route.handler(input);
    if (reply instanceof Promise) return reply.then((r) => sendReply(res, input.requestId, r));
    return sendReply(res, input.requestId, reply);
  }

  /** The queue dashboard is served beside the route table, not in it: it is no operation of the API (nor of its OpenAPI document or MCP tools). */
  function serve(req: IncomingMessage, res: TrackedResponse): Promise<void> | undefined {
    if (admin?.owns(req.url ?? '')) {
      res.routeName = ADMIN_QUEUES_PATH;
      res.logPath = ADMIN_QUEUES_PATH;
      tracingHooks()?.nameRequest(ADMIN_QUEUES_PATH);
      return admin.handle(req, res, res.requestId);
    }
    return dispatch(req, res);
  }

  const writeAccessLine = accessLog(ctx.logger);

  /** The access line and the metrics of a request, once its response is handed to the socket: a 'finish' listener, the response as `this`. */
  function finished(this: TrackedResponse): void {
    const ms = performance.now() - this.startedAt;
    const method = this.req.method ?? 'GET';
    metrics.observe(method, this.routeName, this.statusCode, ms / 1000);
    writeAccessLine({
      reqId: this.requestId,
      method,
      path: this.logPath,
      route: this.routeName,
      status: this.statusCode,
      ms: Math.round(ms * 10) / 10,
      orgId: this.principal?.org.id,
      keyId: this.principal?.keyId,
    });
  }

  function failed(res: TrackedResponse, err: unknown): void {
    if (bodyWasAbandoned(err)) res.setHeader('Connection', 'close');
    sendError(res, res.requestId, err, ctx.logger.child({ reqId: res.requestId }));
  }

  const server = http.createServer(
    { requestTimeout: 120_000, headersTimeout: 30_000, keepAliveTimeout: 5_000, ServerResponse: TrackedResponse },
    (req, res) => {
      res.startedAt = performance.now();
      res.requestId = requestIdOf(req);
      res.on('finish', finished);
      let pending: Promise<void> | undefined;
      try {
        pending = serve(req, res);
      } catch (err) {
        failed(res, err);
        return;
      }
      pending?.catch((err: unknown) => failed(res, err));
    },
  );

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
