import { Redis } from 'ioredis';
import type { Jobs } from '../jobs/index.ts';
import { closeAnalysisPool } from './analysis/index.ts';
import type { Assistants, ProviderGate } from './assistants/index.ts';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import { createDb, type Db } from './db/database.ts';
import { KeyCache, RateLimits } from './domain/workspace/index.ts';
import { createLogger, type Logger } from './logger.ts';
import { JobQueues } from './queue/queues.ts';
import { MetricsRecorder } from './telemetry/shared-metrics.ts';
import { closeSiteFilePool } from './web/site-file-pool.ts';
import type { SiteFetcher } from './web/site-fetch.ts';

/**
 * Everything a request, a job or a CLI command needs, built once per process
 * by `createContext` and closed by `closeContext`, and passed down
 * explicitly: no module-level singletons, so tests build one per test file
 * against their own database and Redis prefix. A handler may hand on a copy
 * with its own child logger (`{ ...ctx, logger }`): the services are shared.
 */
export interface AppContext {
  /** What this process is: sizes its pool and how its Redis connection waits. */
  role: ProcessRole;
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  clock: Clock;
  /** The job queues: the one way to queue a job of the table in jobs/ (src/queue/queues.ts). */
  jobs: JobQueues<Jobs>;
  /** The assistants layer, made on first use (a worker's): every call goes through `gate`. */
  assistants: () => Promise<Assistants>;
  /** Each provider account's limits, held in Redis for every process together (src/assistants/limits.ts). */
  gate: () => Promise<ProviderGate>;
  /** Key look-ups and refusals this process remembers (domain/workspace/key-cache.ts). */
  keys: KeyCache;
  /** The workspace's own rate limits, counted in Redis (domain/workspace/rate-limits.ts). */
  rateLimits: RateLimits;
  /** Job runs and provider calls counted here and summed across processes in Redis (src/telemetry/shared-metrics.ts). */
  metrics: MetricsRecorder;
  /** The SSRF guard webhook deliveries post through, made on first use. */
  webhookFetcher: () => Promise<SiteFetcher>;
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

/** Made on first call, then the same one (for a promise: the same promise, so it is made once). */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

const DB_POOL_SIZE: Record<ProcessRole, number> = {
  // A worker runs scans with dozens of calls in flight, each reserving money: a small pool made them queue.
  worker: 30,
  api: 10,
  cli: 2,
  test: 5,
};

export function createContext(
  config: Config,
  options: { role: ProcessRole; clock?: Clock; logger?: Logger; dbPoolSize?: number },
): AppContext {
  const { role } = options;
  const logger = options.logger ?? createLogger(config.logLevel);
  const redis = createRedis(config, role);
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  const metrics = new MetricsRecorder(redis, config.redisPrefix);
  // The assistants layer (the providers' SDKs) and the fetch guard are loaded on first use: a CLI command or an API
  // process never pays for them.
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
    jobs: new JobQueues(redis, config, logger, async () => (await import('../jobs/index.ts')).JOBS),
    assistants: once(async () => {
      const { createAssistants } = await import('./assistants/index.ts');
      return createAssistants(config.assistants, logger, {
        gate: await gate(),
        retry: { baseDelayMs: config.assistants.retryBaseMs },
      });
    }),
    gate,
    keys: new KeyCache(),
    rateLimits: new RateLimits(redis, config.redisPrefix),
    metrics,
    webhookFetcher: once(async () => (await import('./web/site-fetch.ts')).siteFetcherFor(config)),
  };
}

/** Closes what the context holds, each once: queues and the metrics' last flush before the Redis connection they use. */
export async function closeContext(ctx: AppContext): Promise<void> {
  await Promise.allSettled([ctx.jobs.close(), ctx.metrics.close()]);
  await Promise.allSettled([ctx.db.destroy(), ctx.redis.quit(), closeAnalysisPool(), closeSiteFilePool()]);
}
