import { Redis } from 'ioredis';
import { createAnalysisPool, type AnalysisPool } from './analysis/index.ts';
import type { Assistants, UpstreamGate } from './assistants/index.ts';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import { createDb, type Db } from './db/database.ts';
import type { JobPayloads } from './domain/common/index.ts';
import { ExpiringCache } from './expiring-cache.ts';
import { createLogger, type Logger } from './logger.ts';
import type { JobTableFor } from './queue/job-row.ts';
import { JobQueues } from './queue/queues.ts';
import { RateLimiters } from './rate-limiters.ts';
import { MetricsRecorder } from './telemetry/shared-metrics.ts';
import { createUploadPool, type UploadPool } from './upload-pool.ts';
import { createSiteFilePool, type SiteFilePool } from './web/site-file-pool.ts';
import type { WebhookPoster } from './web/webhook-post.ts';

/**
 * Everything a request, a job or a CLI command needs, built once per process
 * by `createContext` and closed by `closeContext`, and passed down
 * explicitly: no module-level singletons, so tests build one per test file
 * against their own database and Redis prefix. A handler may hand on a copy
 * with its own child logger (`{ ...ctx, logger }`): the services are shared.
 *
 * Every per-process service is a field here, and `closeContext` alone
 * closes them: the queues and the metrics' last flush first, then the
 * database pool, the Redis connection and each `Lazy` service that was made
 * (the thread pools `analysisPool`, `siteFilePool` and `uploadPool`, the
 * webhook connections `webhookPoster` keeps). A `Lazy` field is made by its
 * first call, so a process that never calls it pays nothing. `keys`,
 * `rateLimiters`, `assistants` and `gate` hold nothing to close beyond the
 * Redis connection.
 *
 * Every domain file imports this one, so it imports nothing of the domain
 * above its shared vocabulary (domain/common) and nothing of jobs/: its
 * services are typed from below (the queues by the payload map
 * `JobPayloads`, the key cache as bare expiring entries), the job table is
 * handed in by the process's entry (`jobTable`), and `eslint.config.js`
 * keeps it so.
 */
export interface AppContext {
  /** What this process is: sizes its pool and how its Redis connection waits. */
  role: ProcessRole;
  config: Config;
  logger: Logger;
  /** The database pool (size per role); prepared statements find its pg pool on it (src/db/database.ts). */
  db: Db;
  redis: Redis;
  clock: Clock;
  /** The job queues: the one way to queue a job of the table in jobs/ (src/queue/queues.ts), typed by each job's payload. */
  jobs: JobQueues<JobPayloads>;
  /** The assistants layer, made on first use (a worker's): every call goes through `gate`. */
  assistants: Lazy<Promise<Assistants>>;
  /** Each upstream account's limits (the gate), held in Redis for every process together (src/assistants/upstream-gate.ts). */
  gate: Lazy<Promise<UpstreamGate>>;
  /** Key look-ups and refusals this process remembers (src/expiring-cache.ts); what a look-up holds is domain/orgs/key-cache.ts's. */
  keys: { lookups: ExpiringCache; refusals: ExpiringCache };
  /** The rate limiters, counted in Redis (src/rate-limiters.ts); the limits are domain/orgs/rate-limits.ts's. */
  rateLimiters: RateLimiters;
  /** Job runs and provider calls counted here and summed across processes in Redis (src/telemetry/shared-metrics.ts). */
  metrics: MetricsRecorder;
  /** The analysis threads (src/analysis/pool.ts): scans, reanalyses and name previews read many answers on them. */
  analysisPool: Lazy<AnalysisPool>;
  /** The threads that parse files from customers' sites (src/web/site-file-pool.ts): sitemap imports, crawler checks. */
  siteFilePool: Lazy<SiteFilePool>;
  /** The thread that reads files tenants send, prompt CSV imports (src/upload-pool.ts; the task domain/prompts/csv-thread.ts). */
  uploadPool: Lazy<UploadPool>;
  /** Webhook deliveries' POSTs: the SSRF guard and the connections kept to receivers (src/web/webhook-post.ts). */
  webhookPoster: Lazy<Promise<WebhookPoster>>;
}

/** `test` is an API that also runs workers in the same process (test/helpers/app.ts). */
export type ProcessRole = 'api' | 'worker' | 'cli' | 'test';

export function createRedis(config: Config, role: ProcessRole): Redis {
  return new Redis(config.redisUrl, {
    // BullMQ workers must wait out Redis restarts; the API must fail fast and answer 503;
    // a CLI command may run before its connection is up, so it queues until then.
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role !== 'api' && role !== 'test',
    // Concurrent requests' commands (rate limits, enqueues) share round trips.
    enableAutoPipelining: role === 'api' || role === 'test',
    // rate-limiter-flexible defines its script command when a limiter is made, which we do on first use; ioredis 6.0.0 then
    // sends it into a pipeline opened earlier in the same tick that lacks it, and the pipeline's replies misalign
    // ("results[i] is not iterable", an uncaught exception). ioredis#1931, fixed upstream by #2180, not yet released.
    autoPipeliningIgnoredCommands: ['rlflxIncr'],
    lazyConnect: false,
  });
}

/** A service made by its first call, then the same one (for a promise: the same promise, so it is made once). */
export interface Lazy<T> {
  (): T;
  /** The service once made, else undefined: what `closeContext` closes, without making it. */
  readonly made: T | undefined;
}

function once<T>(make: () => T): Lazy<T> {
  let made: { value: T } | undefined;
  const get = () => (made ??= { value: make() }).value;
  return Object.defineProperty(get, 'made', { get: () => made?.value }) as Lazy<T>;
}

/** Key look-ups, and refusals, held at once: a bound on memory whatever the number of keys sent, the oldest dropped first. */
export const KEY_CACHE_MAX = 10_000;

const DB_POOL_SIZE: Record<ProcessRole, number> = {
  // A worker runs scans with dozens of calls in flight, each reserving money: a small pool made them queue.
  worker: 30,
  api: 10,
  cli: 2,
  test: 5,
};

/** Loads the job table (jobs/load-table.ts `loadJobTable`): each process's entry hands it to `createContext`. */
export type JobTableLoader = () => Promise<JobTableFor<JobPayloads>>;

export function createContext(
  config: Config,
  options: {
    role: ProcessRole;
    /** The job table's loader: called on the first enqueue. */
    jobTable: JobTableLoader;
    clock?: Clock;
    logger?: Logger;
    dbPoolSize?: number;
  },
): AppContext {
  const { role } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const redis = createRedis(config, role);
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  const metrics = new MetricsRecorder(redis, config.redisPrefix);
  // The assistants layer (the providers' SDKs), the fetch guard and the thread pools are made on first use: a CLI
  // command or an API process never pays for what it does not call.
  const gate = once(async () => {
    const [{ createRedisGate, resolveLimits }, { gateObserver }] = await Promise.all([
      import('./assistants/index.ts'),
      import('./telemetry/gate-metrics.ts'),
    ]);
    // Each call's wait and outcome are counted for the operator's /metrics (summed across workers).
    return createRedisGate(redis, {
      prefix: config.redisPrefix,
      limits: resolveLimits(config),
      logger,
      observer: gateObserver(metrics),
    });
  });
  return {
    role,
    config,
    logger,
    db: createDb(config.databaseUrl, {
      max: options.dbPoolSize ?? DB_POOL_SIZE[role],
      // A request never waits on one statement for long; workers' rebuilds of large sites may.
      ...((role === 'api' || role === 'test') && { statementTimeoutMs: 15_000 }),
    }),
    redis,
    clock: options.clock ?? systemClock,
    // The table imports every handler, hence the whole domain: loaded when a job is first queued.
    jobs: new JobQueues(redis, config, logger, options.jobTable),
    assistants: once(async () => {
      const { createAssistants } = await import('./assistants/index.ts');
      return createAssistants(config.assistants, logger, {
        gate: await gate(),
        retry: { baseDelayMs: config.assistants.retryBaseMs },
      });
    }),
    gate,
    keys: { lookups: new ExpiringCache(KEY_CACHE_MAX), refusals: new ExpiringCache(KEY_CACHE_MAX) },
    rateLimiters: new RateLimiters(redis, config.redisPrefix),
    metrics,
    // Threads start with their first task (analysis, a site file, a CSV file), not when the pool is made.
    analysisPool: once(() => createAnalysisPool()),
    siteFilePool: once(() => createSiteFilePool()),
    uploadPool: once(() => createUploadPool()),
    webhookPoster: once(async () => {
      const [{ siteFetcherFor }, { createWebhookPoster }] = await Promise.all([
        import('./web/site-fetch.ts'),
        import('./web/webhook-post.ts'),
      ]);
      return createWebhookPoster(siteFetcherFor(config));
    }),
  };
}

/**
 * Closes what the context holds, each once: queues and the metrics' last flush before the Redis connection they use;
 * then the database, Redis, and every lazy service that was made (none is made here to be closed).
 */
export async function closeContext(ctx: AppContext): Promise<void> {
  await Promise.allSettled([ctx.jobs.close(), ctx.metrics.close()]);
  await Promise.allSettled([
    ctx.db.destroy(),
    ctx.redis.quit(),
    ctx.analysisPool.made?.close(),
    ctx.siteFilePool.made?.close(),
    ctx.uploadPool.made?.close(),
    ctx.webhookPoster.made?.then((poster) => poster.close()),
  ]);
}
