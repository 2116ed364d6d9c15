import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/workspace/auth.ts';
import { storeCachedKey, type CacheEntry } from '../../src/domain/workspace/key-cache.ts';

const principal = (orgId: number): Principal => ({
  kind: 'token',
  keyId: orgId,
  keyName: 'k',
  role: 'viewer',
  user: { id: 1, name: 'u', email: 'u@example.com' },
  org: { id: orgId, name: 'o', plan: 'pro' },
});
const entry = (expires: number): CacheEntry => ({ expires, principal: principal(1), lastUsedAt: null });

describe('key cache', () => {
  it('drops expired entries when it stores one, so a key stays in memory only while its entry is live', () => {
    const cache = new Map<string, CacheEntry>();
    storeCachedKey(cache, 'a', entry(1_000), 0);
    storeCachedKey(cache, 'b', entry(1_500), 500);
    storeCachedKey(cache, 'c', entry(2_200), 1_200);
    expect([...cache.keys()]).toEqual(['b', 'c']);
    storeCachedKey(cache, 'd', entry(3_600), 2_600);
    expect([...cache.keys()]).toEqual(['d']);
  });

  it('moves a stored-again key to the newest place', () => {
    const cache = new Map<string, CacheEntry>();
    storeCachedKey(cache, 'a', entry(1_000), 0);
    storeCachedKey(cache, 'b', entry(1_100), 100);
    storeCachedKey(cache, 'a', entry(1_200), 200);
    expect([...cache.keys()]).toEqual(['b', 'a']);
    expect(cache.get('a')?.expires).toBe(1_200);
  });

  it('holds at most 10,000 keys, dropping the oldest', () => {
    const cache = new Map<string, CacheEntry>();
    for (let i = 0; i < 10_050; i++) storeCachedKey(cache, `k${i}`, entry(1_000_000), 0);
    expect(cache.size).toBe(10_000);
    expect(cache.has('k49')).toBe(false);
    expect(cache.has('k50')).toBe(true);
    expect(cache.has('k10049')).toBe(true);
  });
});
