import type { AppContext } from '../../context.ts';
import type { ExpiringCache } from '../../expiring-cache.ts';
import type { Principal } from './auth.ts';

/**
 * How long a cached key look-up is trusted without hearing of a change: the
 * bound on how late a revocation takes effect in a process that missed its
 * announcement (key-changes.ts); at most one query per key per second.
 */
export const KEY_CACHE_TTL_MS = 1_000;

/**
 * How long a well-formed key that was refused (unknown, revoked, its creator
 * gone) is refused again without asking Postgres: a caller spraying keys, or
 * retrying a dead one, costs one look-up per key per 5 s instead of one per
 * request. A key that becomes valid meanwhile: an announced membership change
 * and a key created in this process drop every refusal at once; otherwise it
 * is refused for at most this long (a new key is 240 random bits, so no
 * process has refused it before it exists unless someone sent it first).
 */
export const KEY_REFUSAL_TTL_MS = 5_000;

/**
 * A key's look-up as this process remembers it, held by the key as sent, so
 * a request with a cached key hashes nothing (a SHA-256 per request was a
 * measurable share of bench/http). Keys live in this process's memory
 * (`ctx.keys`: an ExpiringCache of look-ups and one of refusals, each bounded
 * by KEY_CACHE_MAX in src/context.ts) only while their entry is live (expired
 * ones are swept as new ones are stored) and are never logged. A look-up
 * compares strings only when V8's seeded hash of the whole key matches an
 * entry's, so a caller cannot time its way to a key character by character
 * (a guess must first collide with a secret-seeded hash, then be timed to the
 * nanosecond over the network); the database is still queried by SHA-256.
 * Refusals are kept apart from the principals: a refusal carries no
 * workspace, and is dropped by every announced change.
 */
export interface CacheEntry {
  /** Monotonic time (performance.now) after which the entry is not trusted. */
  expires: number;
  principal: Principal;
  lastUsedAt: Date | null;
}

/**
 * This process's cached look-ups, by key. The context is typed below the
 * domain, so it holds them as bare expiring entries; this file alone stores
 * and reads them, always as CacheEntry.
 */
export function cacheOf(ctx: Pick<AppContext, 'keys'>): ExpiringCache<CacheEntry> {
  return ctx.keys.lookups as ExpiringCache<CacheEntry>;
}

/** This process's refused keys, each with the monotonic time its refusal ends. */
export function refusalsOf(ctx: Pick<AppContext, 'keys'>): ExpiringCache {
  return ctx.keys.refusals;
}

/**
 * Drops a workspace's cached look-ups, or all of them (null), and every
 * refusal: the change (a member added back, say) may make a refused key good.
 */
export function dropCachedKeys(ctx: Pick<AppContext, 'keys'>, orgId: number | null): void {
  const cache = cacheOf(ctx);
  if (orgId === null) cache.clear();
  else cache.deleteWhere((entry) => entry.principal.org.id === orgId);
  refusalsOf(ctx).clear();
}
