import { Redis } from 'ioredis';
import { closeAnalysisPool } from './analysis/index.ts';
import type { Config } from './config.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import { createDb, type Db } from './db/database.ts';
import { createLogger, type Logger } from './logger.ts';
import { closeSiteFilePool } from './web/site-file-pool.ts';

/**
 * Everything a request, a job or a CLI command needs, built once per process
 * and passed down explicitly (no module-level singletons), so tests build
 * one per test file against their own database and Redis prefix.
 */
export interface AppContext {
  config: Config;
  logger: Logger;
  db: Db;
  redis: Redis;
  clock: Clock;
}

export type RedisRole = 'api' | 'worker' | 'cli';

export function createRedis(config: Config, role: RedisRole): Redis {
  return new Redis(config.redisUrl, {
    // BullMQ workers must wait out Redis restarts; the API must fail fast and answer 503;
    // a CLI command may run before its connection is up, so it queues until then.
    maxRetriesPerRequest: role === 'worker' ? null : 1,
    enableOfflineQueue: role !== 'api',
    // Concurrent requests' commands (rate limits, enqueues) share round trips.
    enableAutoPipelining: role === 'api',
    lazyConnect: false,
  });
}

export function createContext(config: Config, options: { role: RedisRole; clock?: Clock; logger?: Logger; dbPoolSize?: number }): AppContext {
  const logger = options.logger ?? createLogger(config.logLevel);
  const redis = createRedis(config, options.role);
  redis.on('error', (err: Error) => logger.warn({ err: err.message }, 'redis connection error'));
  return {
    config,
    logger,
    // A worker runs scans with dozens of calls in flight, each reserving money: a small pool made them queue.
    db: createDb(config.databaseUrl, {
      max: options.dbPoolSize ?? (options.role === 'worker' ? 30 : 10),
      // A request never waits on one statement for long; workers' rebuilds of large sites may.
      ...(options.role === 'api' && { statementTimeoutMs: 15_000 }),
    }),
    redis,
    clock: options.clock ?? systemClock,
  };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await Promise.allSettled([ctx.db.destroy(), ctx.redis.quit(), closeAnalysisPool(), closeSiteFilePool()]);
}
