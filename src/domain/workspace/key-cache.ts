import type { AppContext } from '../../context.ts';
import type { Principal } from './auth.ts';

/**
 * How long a cached key look-up is trusted without hearing of a change: the
 * bound on how late a revocation takes effect in a process that missed its
 * announcement (key-changes.ts); at most one query per key per second.
 */
export const KEY_CACHE_TTL_MS = 1_000;

export interface CacheEntry {
  /** Monotonic time (performance.now) after which the entry is not trusted. */
  expires: number;
  principal: Principal;
  lastUsedAt: Date | null;
}

const caches = new WeakMap<AppContext['db'], Map<string, CacheEntry>>();

/** This process's cached look-ups, by key hash. */
export function cacheOf(ctx: Pick<AppContext, 'db'>): Map<string, CacheEntry> {
  let cache = caches.get(ctx.db);
  if (!cache) caches.set(ctx.db, (cache = new Map()));
  return cache;
}

/** Drops a workspace's cached look-ups, or all of them (null). */
export function dropCachedKeys(ctx: Pick<AppContext, 'db'>, orgId: number | null): void {
  const cache = cacheOf(ctx);
  if (orgId === null) cache.clear();
  else for (const [hash, entry] of cache) if (entry.principal.org.id === orgId) cache.delete(hash);
}
