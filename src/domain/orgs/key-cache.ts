import type { AppContext } from '../../context.ts';
import type { Principal } from './auth.ts';

/**
 * How long a cached key look-up is trusted without hearing of a change: the
 * bound on how late a revocation takes effect in a process that missed its
 * announcement (key-changes.ts); at most one query per key per second.
 */
export const KEY_CACHE_TTL_MS = 1_000;

/** Past this many keys in one second, the oldest entries make room. */
const CACHE_MAX = 10_000;

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

/** Refusals held at once: a bound on memory whatever the number of keys sprayed, the oldest dropped first. */
export const REFUSALS_MAX = 10_000;

export interface CacheEntry {
  /** Monotonic time (performance.now) after which the entry is not trusted. */
  expires: number;
  principal: Principal;
  lastUsedAt: Date | null;
}

/**
 * By the key as sent, so a request with a cached key hashes nothing (a
 * SHA-256 per request was a measurable share of bench/http). Keys live
 * here, in this process's memory, only while their entry is live (expired
 * ones are swept as new ones are stored) and are never logged. A look-up
 * compares strings only when V8's seeded hash of the whole key matches an
 * entry's, so a caller cannot time its way to a key character by character
 * (a guess must first collide with a secret-seeded hash, then be timed to
 * the nanosecond over the network); the database is still queried by SHA-256.
 */
export class KeyCache {
  /** This process's cached look-ups, by key. */
  readonly entries = new Map<string, CacheEntry>();
  /**
   * Refused keys as sent, each with the monotonic time its refusal ends. Kept
   * apart from the principals: a refusal carries no workspace, and is dropped
   * by every announced change.
   */
  readonly refusals = new Map<string, number>();
}

/** This process's cached look-ups, by key (`ctx.keys`, made with the context). */
export function cacheOf(ctx: Pick<AppContext, 'keys'>): Map<string, CacheEntry> {
  return ctx.keys.entries;
}

/** This process's refused keys. */
export function refusalsOf(ctx: Pick<AppContext, 'keys'>): Map<string, number> {
  return ctx.keys.refusals;
}

/**
 * Remembers a refusal as the newest entry. Entries are in insertion order,
 * which with one TTL is also the order they expire: expired ones are dropped
 * from the front, and past REFUSALS_MAX the oldest (least recently refused)
 * makes room, so keys sprayed at random cycle through a bounded map.
 */
export function storeRefusal(map: Map<string, number>, key: string, expires: number, now: number): void {
  map.delete(key);
  for (const [old, until] of map) {
    if (until > now && map.size < REFUSALS_MAX) break;
    map.delete(old);
  }
  map.set(key, expires);
}

/** Stores a look-up as the newest entry, dropping expired ones (entries are in about the order they expire) and the oldest past CACHE_MAX. */
export function storeCachedKey(cache: Map<string, CacheEntry>, key: string, entry: CacheEntry, now: number): void {
  cache.delete(key);
  for (const [old, { expires }] of cache) {
    if (expires > now && cache.size < CACHE_MAX) break;
    cache.delete(old);
  }
  cache.set(key, entry);
}

/**
 * Drops a workspace's cached look-ups, or all of them (null), and every
 * refusal: the change (a member added back, say) may make a refused key good.
 */
export function dropCachedKeys(ctx: Pick<AppContext, 'keys'>, orgId: number | null): void {
  const cache = cacheOf(ctx);
  if (orgId === null) cache.clear();
  else for (const [key, entry] of cache) if (entry.principal.org.id === orgId) cache.delete(key);
  refusalsOf(ctx).clear();
}
