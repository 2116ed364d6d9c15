import type { AppContext } from '../../context.ts';

/**
 * A counter in Redis that every change to who may use a key (revocation,
 * membership added, changed or removed) bumps after its commit. API
 * processes cache key look-ups and re-check this one value per request, so
 * a change is seen by the very next request in every process.
 */
export function authEpochKey(ctx: Pick<AppContext, 'config'>): string {
  return `${ctx.config.redisPrefix}:auth:epoch`;
}

export async function bumpAuthEpoch(ctx: Pick<AppContext, 'config' | 'redis'>): Promise<void> {
  await ctx.redis.incr(authEpochKey(ctx));
}

/** Null when Redis cannot answer: callers then skip the cache and ask Postgres. */
export async function readAuthEpoch(ctx: Pick<AppContext, 'config' | 'redis'>): Promise<string | null> {
  try {
    return (await ctx.redis.get(authEpochKey(ctx))) ?? '0';
  } catch {
    return null;
  }
}
