import type { AppContext } from '../../context.ts';
import { dropCachedKeys } from './key-cache.ts';

/**
 * Telling every API process that who may use a key changed (a key revoked,
 * a membership added, changed or removed), so cached key look-ups are
 * dropped at once. Pushed over Redis pub/sub after the change commits; a
 * process that misses the message (Redis restarted, its subscriber was
 * reconnecting) still drops each entry when its short TTL runs out
 * (auth.ts), so nothing depends on a counter that could come back to an old
 * value.
 */
export function keyChangesChannel(ctx: Pick<AppContext, 'config'>): string {
  return `${ctx.config.redisPrefix}:auth:changed`;
}

/** This process drops its entries at once; others hear it over Redis (best effort: entries expire within their TTL anyway). */
export async function announceKeyChange(
  ctx: Pick<AppContext, 'config' | 'redis' | 'logger' | 'keys'>,
  orgId: number,
): Promise<void> {
  dropCachedKeys(ctx, orgId);
  try {
    await ctx.redis.publish(keyChangesChannel(ctx), String(orgId));
  } catch (err) {
    ctx.logger.warn(
      { err: (err as Error).message, orgId },
      'key change not announced; cached keys expire within their TTL',
    );
  }
}

/**
 * Subscribes this process to key changes and drops the cached look-ups each
 * names, and all of them whenever the subscription (re)connects, since
 * messages sent while it was down are lost. Run by each API process for its
 * lifetime; returns the stop.
 */
export function dropCachedKeysOnChange(
  ctx: Pick<AppContext, 'config' | 'redis' | 'logger' | 'keys'>,
): () => Promise<void> {
  const onChange = (orgId: number | null) => dropCachedKeys(ctx, orgId);
  const sub = ctx.redis.duplicate({
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    enableAutoPipelining: false,
  });
  const channel = keyChangesChannel(ctx);
  sub.on('error', (err: Error) => ctx.logger.debug({ err: err.message }, 'key change subscriber error'));
  sub.on('ready', () => onChange(null));
  sub.on('message', (got: string, message: string) => {
    if (got !== channel) return;
    const orgId = Number(message);
    onChange(Number.isInteger(orgId) && orgId > 0 ? orgId : null);
  });
  sub
    .subscribe(channel)
    .catch((err: Error) => ctx.logger.warn({ err: err.message }, 'could not subscribe to key changes'));
  return async () => {
    sub.disconnect();
  };
}
