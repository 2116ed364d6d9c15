import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/domain/orgs/auth.ts';
import { REFUSALS_MAX, storeCachedKey, storeRefusal, type CacheEntry } from '../../src/domain/orgs/key-cache.ts';

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

describe('refused keys', () => {
  it('drops expired refusals as new ones are stored', () => {
    const map = new Map<string, number>();
    storeRefusal(map, 'a', 5_000, 0);
    storeRefusal(map, 'b', 6_000, 1_000);
    storeRefusal(map, 'c', 10_500, 5_500);
    expect([...map.keys()]).toEqual(['b', 'c']);
  });

  it(`holds at most ${REFUSALS_MAX} keys however many are sprayed, dropping the oldest`, () => {
    expect(REFUSALS_MAX).toBe(10_000);
    const map = new Map<string, number>();
    for (let i = 0; i < 50_000; i++) storeRefusal(map, `slk_${i}`, 1_000_000, 0);
    expect(map.size).toBe(REFUSALS_MAX);
    expect(map.has('slk_39999')).toBe(false);
    expect(map.has('slk_40000')).toBe(true);
    expect(map.has('slk_49999')).toBe(true);
  });
});
