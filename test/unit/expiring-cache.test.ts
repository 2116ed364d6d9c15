import { describe, expect, it } from 'vitest';
import { KEY_CACHE_MAX } from '../../src/context.ts';
import { ExpiringCache, type Expiring } from '../../src/expiring-cache.ts';

const entry = (expires: number): Expiring & { org: number } => ({ expires, org: 1 });

describe('expiring cache (the key look-ups)', () => {
  it('drops expired entries when it stores one, so a key stays in memory only while its entry is live', () => {
    const cache = new ExpiringCache(KEY_CACHE_MAX);
    cache.set('a', entry(1_000), 0);
    cache.set('b', entry(1_500), 500);
    cache.set('c', entry(2_200), 1_200);
    expect([...cache.keys()]).toEqual(['b', 'c']);
    cache.set('d', entry(3_600), 2_600);
    expect([...cache.keys()]).toEqual(['d']);
  });

  it('moves a stored-again key to the newest place', () => {
    const cache = new ExpiringCache(KEY_CACHE_MAX);
    cache.set('a', entry(1_000), 0);
    cache.set('b', entry(1_100), 100);
    cache.set('a', entry(1_200), 200);
    expect([...cache.keys()]).toEqual(['b', 'a']);
    expect(cache.get('a')?.expires).toBe(1_200);
  });

  it('holds at most 10,000 keys, dropping the oldest', () => {
    expect(KEY_CACHE_MAX).toBe(10_000);
    const cache = new ExpiringCache(KEY_CACHE_MAX);
    for (let i = 0; i < 10_050; i++) cache.set(`k${i}`, entry(1_000_000), 0);
    expect(cache.size).toBe(10_000);
    expect(cache.get('k49')).toBeUndefined();
    expect(cache.get('k50')).toBeDefined();
    expect(cache.get('k10049')).toBeDefined();
  });

  it('drops the entries a change names, and keeps the others', () => {
    const cache = new ExpiringCache<Expiring & { org: number }>(KEY_CACHE_MAX);
    cache.set('a', { expires: 1_000, org: 1 }, 0);
    cache.set('b', { expires: 1_000, org: 2 }, 0);
    cache.set('c', { expires: 1_000, org: 1 }, 0);
    cache.deleteWhere((e) => e.org === 1);
    expect([...cache.keys()]).toEqual(['b']);
  });
});

describe('refused keys', () => {
  it('drops expired refusals as new ones are stored', () => {
    const refusals = new ExpiringCache(KEY_CACHE_MAX);
    refusals.set('a', { expires: 5_000 }, 0);
    refusals.set('b', { expires: 6_000 }, 1_000);
    refusals.set('c', { expires: 10_500 }, 5_500);
    expect([...refusals.keys()]).toEqual(['b', 'c']);
  });

  it(`holds at most ${KEY_CACHE_MAX} keys however many are sprayed, dropping the oldest`, () => {
    const refusals = new ExpiringCache(KEY_CACHE_MAX);
    for (let i = 0; i < 50_000; i++) refusals.set(`slk_${i}`, { expires: 1_000_000 }, 0);
    expect(refusals.size).toBe(KEY_CACHE_MAX);
    expect(refusals.get('slk_39999')).toBeUndefined();
    expect(refusals.get('slk_40000')).toBeDefined();
    expect(refusals.get('slk_49999')).toBeDefined();
  });
});
