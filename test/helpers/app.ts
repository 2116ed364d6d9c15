import { randomBytes } from 'node:crypto';
import FindMyWay from 'find-my-way';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type { Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { JOBS } from '../../jobs/index.ts';
import { closeContext, createContext, type AppContext } from '../../src/context.ts';
import { errorEnvelope } from '../../src/domain/common/responses.ts';
import { createMetrics } from '../../src/http/prometheus.ts';
import type { Route } from '../../src/http/route.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/logger.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { startWorkers, type Workers } from '../../src/queue/worker.ts';
import { createTestDatabase } from './database.ts';
import { loadJobTable } from '../../jobs/load-table.ts';

export interface TestApp {
  url: string;
  /** The simulator's URL when started with `simulator: true`. */
  simulatorUrl: string | null;
  ctx: AppContext;
  config: Config;
  env: Record<string, string>;
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  // Response bodies are whatever the endpoint returns; tests assert on their shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

let router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | null = null;

/** The route a request reaches, matched like the server does (find-my-way over the one route table). */
function routeOf(method: string, path: string): Route | null {
  if (!router) {
    router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 16_384 });
    for (const route of allRoutes(createMetrics())) router.on(route.method, route.path, () => undefined, route);
  }
  // Parsed as a path, never as a URL of its own, as the server does (`//x` is a path).
  let pathname = new URL(`http://localhost${path.startsWith('/') ? '' : '/'}${path}`).pathname;
  try {
    decodeURIComponent(pathname);
  } catch {
    pathname = pathname.replaceAll('%', '%25');
  }
  return (router.find(method as FindMyWay.HTTPMethod, pathname)?.store as Route | undefined) ?? null;
}

/**
 * Why a JSON response disagrees with what its route declares (null when it
 * agrees): a success body against the route's response schema for that
 * status, a refusal against the error envelope (or the route's own schema
 * for that status, as /readyz's 503). Every request of the integration tests
 * goes through this, so the OpenAPI document cannot drift from what the
 * server sends.
 */
export function responseProblem(
  method: string,
  path: string,
  status: number,
  contentType: string | null,
  body: unknown,
): string | null {
  if (!contentType?.includes('json') || body === undefined) return null;
  const route = routeOf(method, path);
  const name = `${method} ${route?.path ?? path}`;
  const spec = route?.responses?.[status];
  let schema: z.ZodType | null = null;
  if (spec instanceof z.ZodType) schema = spec;
  else if (spec && typeof spec === 'object' && spec.schema) schema = spec.schema;
  else if (status >= 400) schema = errorEnvelope;
  else if (!spec) return `${name} answered ${status} with JSON, a status its route does not declare in \`responses\``;
  if (!schema) return null;
  const result = schema.safeParse(body);
  if (result.success) return null;
  return `${name} answered ${status} with a body its response schema refuses:\n${z.prettifyError(result.error)}\n${JSON.stringify(body).slice(0, 2000)}`;
}

/** Deletes every Redis key under a prefix (SCAN, never KEYS, so a shared Redis stays responsive). */
export async function clearRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * The real HTTP server on a random port, over this file's own database and
 * Redis key prefix. Call close() in afterAll: it drops both.
 */
export async function startTestApp(
  options: {
    variant?: 'A' | 'B' | 'AB';
    clock?: Clock;
    env?: Record<string, string>;
    workers?: boolean | { queues?: string[]; concurrency?: number };
    /** Start the assistant simulator on a random port and point every provider at it. */
    simulator?: boolean;
  } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const simulator = options.simulator ? await startSimulator({ port: 0, host: '127.0.0.1', jobDelayMs: 200 }) : null;
  const prefix = `sightline-test:${randomBytes(5).toString('hex')}`;
  const env: Record<string, string> = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: prefix,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    API_VARIANT: options.variant ?? 'AB',
    ASSISTANTS: 'simulator',
    // Retries back off from 10 ms instead of 1 s so failure tests stay fast.
    ASSISTANT_RETRY_BASE_MS: '10',
    // Tests never fetch the internet: only SITE_FETCH_MAP domains (local fixture sites) are fetched.
    SITE_FETCH_OUTBOUND: 'off',
    ...(simulator && { SIMULATOR_URL: simulator.url }),
    ...options.env,
  };
  const config = loadConfig(env);
  const ctx = createContext(config, {
    role: 'test',
    jobTable: loadJobTable,
    clock: options.clock,
    logger: createLogger(config.logLevel, { fd: 2 }),
  });
  const http = createHttpServer(ctx, allRoutes);
  const url = await http.listen(0, '127.0.0.1');
  // Jobs run in real BullMQ workers inside the test process, against this file's Redis prefix.
  const workers: Workers | null = options.workers
    ? startWorkers(ctx, JOBS, options.workers === true ? {} : options.workers)
    : null;

  const request: TestApp['request'] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = undefined;
    if (res.headers.get('content-type')?.includes('json') && text) parsed = JSON.parse(text);
    const problem = responseProblem(method, path, res.status, res.headers.get('content-type'), parsed);
    if (problem) throw new Error(problem);
    return { status: res.status, headers: res.headers, body: parsed, text };
  };

  return {
    url,
    simulatorUrl: simulator?.url ?? null,
    ctx,
    config,
    env,
    request,
    async close() {
      await workers?.close();
      await http.close();
      await closeContext(ctx);
      await clearRedisPrefix(env.REDIS_URL as string, prefix);
      await database.drop();
      await simulator?.close();
    },
  };
}
