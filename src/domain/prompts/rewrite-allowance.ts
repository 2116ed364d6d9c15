import type { AppContext } from '../../context.ts';
import { utcDay } from '../../dates.ts';
import { ServiceUnavailableError } from '../../errors.ts';

/**
 * The daily allowance of query rewrites of a workspace (plans.ts
 * `rewritesPerDay`): each rewritten prompt is one ChatGPT call the workspace
 * is not charged for, so the calls, not the requests, are what is counted.
 * One Redis counter per workspace and UTC day, taken by the rewrite job in
 * one atomic step per batch (a Lua script grants what is left, never more),
 * so rewrite jobs of several sites of one workspace, on any number of
 * workers, together stay within the allowance. Like the rate limits, it is a
 * counter Redis may lose (then the day starts over): a bound on free calls,
 * not money.
 */

/** Kept a day past its own so a clock a little off between processes still finds it. */
const KEY_TTL_SECONDS = 2 * 24 * 3600;

/** Grants min(wanted, what is left) and counts it, in one step. */
const TAKE_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local room = tonumber(ARGV[1]) - used
local want = tonumber(ARGV[2])
if room <= 0 or want <= 0 then return 0 end
local grant = math.min(room, want)
redis.call('INCRBY', KEYS[1], grant)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return grant`;

function keyOf(ctx: AppContext, orgId: number): string {
  return `${ctx.config.redisPrefix}:rewrites:${orgId}:${utcDay(ctx.clock.now())}`;
}

function unavailable(ctx: AppContext, err: unknown): ServiceUnavailableError {
  ctx.logger.warn({ err: (err as Error).message }, 'rewrite allowance not read');
  return new ServiceUnavailableError('Rewrite allowance store (Redis) is unavailable; try again shortly');
}

/** Rewrites the workspace may still ask for today. */
export async function rewritesLeftToday(ctx: AppContext, orgId: number, perDay: number): Promise<number> {
  try {
    const used = Number((await ctx.redis.get(keyOf(ctx, orgId))) ?? 0);
    return Math.max(0, perDay - used);
  } catch (err) {
    throw unavailable(ctx, err);
  }
}

/** Takes up to `wanted` rewrites from today's allowance; answers how many were granted (0 when it is spent). */
export async function takeRewrites(ctx: AppContext, orgId: number, perDay: number, wanted: number): Promise<number> {
  if (wanted <= 0) return 0;
  try {
    return Number(await ctx.redis.eval(TAKE_SCRIPT, 1, keyOf(ctx, orgId), perDay, wanted, KEY_TTL_SECONDS));
  } catch (err) {
    throw unavailable(ctx, err);
  }
}

/** Seconds until the allowance starts over (the next UTC midnight). */
export function secondsUntilNextUtcDay(now: Date): number {
  const next = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((next - now.getTime()) / 1000));
}
