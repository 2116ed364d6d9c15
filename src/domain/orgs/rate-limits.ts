import { RateLimiterRes } from 'rate-limiter-flexible';
import type { AppContext } from '../../context.ts';
import { RateLimitedError, ServiceUnavailableError } from '../../errors.ts';

/**
 * CONTRACT.md "Own rate limits": per hour, 429 with Retry-After past them;
 * counted by the context's limiters (`ctx.rateLimiters`, src/rate-limiters.ts).
 */
export const RATE_LIMITS = {
  invitations: { points: 20, perSeconds: 3600, what: 'invitations per workspace' },
  sitemapImport: { points: 10, perSeconds: 3600, what: 'sitemap imports per site' },
  rewrite: { points: 10, perSeconds: 3600, what: 'rewrite calls per site' },
  crawlerCheck: { points: 10, perSeconds: 3600, what: 'crawler checks per site' },
  // Each is a POST from our addresses to one the tenant chose (docs/webhooks.md).
  webhookSends: { points: 60, perSeconds: 3600, what: 'webhook tests and replays per webhook' },
} as const;

export type RateLimitName = keyof typeof RATE_LIMITS;

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
    await ctx.rateLimiters.limiter(name, RATE_LIMITS[name]).consume(String(subject), 1);
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
