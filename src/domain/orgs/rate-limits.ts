import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { Redis } from 'ioredis';
import type { AppContext } from '../../context.ts';
import { RateLimitedError, ServiceUnavailableError } from '../../errors.ts';

/** CONTRACT.md "Own rate limits": per hour, 429 with Retry-After past them. */
export const RATE_LIMITS = {
  invitations: { points: 20, perSeconds: 3600, what: 'invitations per workspace' },
  sitemapImport: { points: 10, perSeconds: 3600, what: 'sitemap imports per site' },
  rewrite: { points: 10, perSeconds: 3600, what: 'rewrite calls per site' },
  crawlerCheck: { points: 10, perSeconds: 3600, what: 'crawler checks per site' },
  // Each is a POST from our addresses to one the tenant chose (docs/webhooks.md).
  webhookSends: { points: 60, perSeconds: 3600, what: 'webhook tests and replays per webhook' },
} as const;

export type RateLimitName = keyof typeof RATE_LIMITS;

/** A process's limiters, one per name, made on first use over the context's Redis connection (`ctx.rateLimits`). */
export class RateLimits {
  readonly #limiters = new Map<RateLimitName, RateLimiterRedis>();
  readonly #redis: Redis;
  readonly #prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
  }

  limiter(name: RateLimitName): RateLimiterRedis {
    let limiter = this.#limiters.get(name);
    if (!limiter) {
      const { points, perSeconds } = RATE_LIMITS[name];
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

/**
 * The limiter refuses while its connection is not ready (so a Redis outage is a
 * 503 at once, not a hang); a process that has only just started (a CLI
 * command) waits for its first connection instead, for up to a second.
 */
async function connected(redis: AppContext['redis']): Promise<void> {
  if (redis.status !== 'connecting' && redis.status !== 'connect' && redis.status !== 'wait') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, 1_000);
    redis.once('ready', done);
  });
}

/** Takes one point for `subject` (a workspace or site id) or throws 429 with the wait. */
export async function consumeRateLimit(ctx: AppContext, name: RateLimitName, subject: string | number): Promise<void> {
  try {
    await connected(ctx.redis);
    await ctx.rateLimits.limiter(name).consume(String(subject), 1);
  } catch (err) {
    if (err instanceof RateLimiterRes) {
      const { points, what } = RATE_LIMITS[name];
      throw new RateLimitedError(
        `Too many requests: at most ${points} ${what} an hour; try again later`,
        err.msBeforeNext / 1000,
      );
    }
    throw new ServiceUnavailableError('Rate limit store (Redis) is unavailable; try again shortly');
  }
}
