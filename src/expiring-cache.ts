/** What an expiring cache holds: anything that says until when it is trusted. */
export interface Expiring {
  /** Monotonic time (performance.now) after which the entry is not trusted. */
  readonly expires: number;
}

/**
 * A process's bounded cache of entries that expire, by string key: what it
 * holds is its user's (the key look-ups and refusals of domain/orgs/key-cache.ts),
 * this knows only their expiry. Entries are kept in the order they were
 * stored, which with one TTL per cache is also the order they expire: storing
 * one drops expired entries from the front, and past `max` the oldest makes
 * room, so memory stays bounded whatever number of keys callers send.
 * Invalidation is its user's: `delete`, `deleteWhere` or `clear` when it hears
 * of a change. Expired entries are still returned until swept: a caller
 * compares `expires` with its own reading of the clock (read once per request).
 */
export class ExpiringCache<V extends Expiring = Expiring> {
  readonly #entries = new Map<string, V>();
  readonly max: number;

  constructor(max: number) {
    this.max = max;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entry stored under `key`, expired or not. */
  get(key: string): V | undefined {
    return this.#entries.get(key);
  }

  /** Stores `entry` as the newest, dropping expired entries (as of `now`) and the oldest past `max`. */
  set(key: string, entry: V, now: number): void {
    const entries = this.#entries;
    entries.delete(key);
    for (const [old, { expires }] of entries) {
      if (expires > now && entries.size < this.max) break;
      entries.delete(old);
    }
    entries.set(key, entry);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  deleteWhere(drop: (entry: V) => boolean): void {
    for (const [key, entry] of this.#entries) if (drop(entry)) this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  /** The keys held, oldest first. */
  keys(): IterableIterator<string> {
    return this.#entries.keys();
  }
}
