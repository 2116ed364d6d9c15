import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';

/** A rate limit: `points` per `perSeconds`, counted in Redis for every process together. */
export interface RateLimit {
  points: number;
  perSeconds: number;
}

/**
 * A process's rate limiters (`ctx.rateLimiters`), one per name, made on first
 * use over the context's Redis connection. Which limits exist and what they
 * allow is product policy, the caller's (domain/orgs/rate-limits.ts
 * `RATE_LIMITS`): it hands in a name's limit with each use, and a name keeps
 * the limit it was first made with for the life of the process.
 */
export class RateLimiters {
  readonly #limiters = new Map<string, RateLimiterRedis>();
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  limiter(name: string, { points, perSeconds }: RateLimit): RateLimiterRedis {
    let limiter = this.#limiters.get(name);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.#redis,
        keyPrefix: `${this.#prefix}:rl:${name}`,
        points,
        duration: perSeconds,
        rejectIfRedisNotReady: true,
      });
      this.#limiters.set(name, limiter);
    }
    return limiter;
  }
}
