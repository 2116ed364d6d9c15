import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../context.ts';

/**
 * At most WEBHOOK_MAX_IN_FLIGHT attempts to one webhook at once, across every
 * worker: a receiver that takes its full 10 s holds that many delivery slots
 * and no more, so it never holds back deliveries to the others. A sorted set
 * per webhook of slot tokens scored by when they lapse, so a worker that died
 * holding one frees it within its TTL.
 */

const ACQUIRE = `
redis.call('zremrangebyscore', KEYS[1], '-inf', ARGV[1])
if redis.call('zcard', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('zadd', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), ARGV[4])
redis.call('pexpire', KEYS[1], ARGV[2])
return 1`;

export interface Slot {
  release(): Promise<void>;
}

/** A slot for one attempt to this webhook, held at most `ttlMs`; null when every slot is taken. */
export async function takeSlot(ctx: AppContext, webhookId: number, ttlMs: number): Promise<Slot | null> {
  const key = `${ctx.config.redisPrefix}:webhook-in-flight:${webhookId}`;
  const token = randomUUID();
  const got = await ctx.redis.eval(
    ACQUIRE,
    1,
    key,
    String(Date.now()),
    String(ttlMs),
    String(ctx.config.webhooks.maxInFlight),
    token,
  );
  if (got !== 1) return null;
  return {
    release: async () => {
      await ctx.redis.zrem(key, token).catch(() => undefined);
    },
  };
}
