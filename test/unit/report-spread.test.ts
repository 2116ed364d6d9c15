import { describe, expect, it } from 'vitest';
import { clusterSums, createPrng } from '../../src/analysis/intervals.ts';
import { against, clusterOf, pairOf, shareBounds } from '../../src/domain/reports/spread.ts';

/**
 * The sums the database hands the interval (src/domain/reports/spread.ts),
 * rebuilt here from per-prompt counts: what pairJson's SQL adds up, pairOf
 * must turn into the same ClusterSums as each share's own per-prompt pairs.
 */

/** What pairJson returns for per-prompt (answered, brand named, competitor named) rows. */
function pairArray(rows: [number, number, number][]): number[] {
  const sum = (f: (r: [number, number, number]) => number) => rows.reduce((s, r) => s + f(r), 0);
  return [
    sum((r) => r[0]),
    sum((r) => r[1]),
    sum((r) => r[2]),
    sum((r) => r[0] * r[0]),
    sum((r) => r[1] * r[1]),
    sum((r) => r[2] * r[2]),
    sum((r) => r[1] * r[0]),
    sum((r) => r[2] * r[0]),
    sum((r) => r[1] * r[2]),
    rows.filter((r) => r[0] > 0).length,
    rows.filter((r) => r[1] + r[2] > 0).length,
  ];
}

describe('report spread sums', () => {
  it('pairOf gives each of the four paired shares the sums of its own per-prompt pairs', () => {
    const random = createPrng(7);
    for (let trial = 0; trial < 50; trial++) {
      const rows = Array.from({ length: 1 + Math.floor(random() * 30) }, (): [number, number, number] => {
        const a = Math.floor(random() * 7);
        return [a, Math.floor(random() * (a + 1)), Math.floor(random() * (a + 1))];
      });
      const spread = pairOf(pairArray(rows));
      expect(spread?.brandVisibility).toEqual(clusterSums(rows.map((r) => [r[1], r[0]])));
      expect(spread?.competitorVisibility).toEqual(clusterSums(rows.map((r) => [r[2], r[0]])));
      expect(spread?.brandVoice).toEqual(clusterSums(rows.map((r) => [r[1], r[1] + r[2]])));
      expect(spread?.competitorVoice).toEqual(clusterSums(rows.map((r) => [r[2], r[1] + r[2]])));
    }
  });

  it('against joins a part to its whole as the per-prompt pairs would', () => {
    const rows: [number, number][] = [
      [2, 3],
      [0, 3],
      [1, 1],
    ];
    const whole = clusterSums(rows.map(([, n]) => [0, n]));
    const part = { y: 3, yy: 4 + 0 + 1, yn: 6 + 0 + 1 };
    expect(against(whole, part)).toEqual(clusterSums(rows));
    // A part never seen is zero over the same whole; no whole, no interval.
    expect(against(whole, undefined)).toEqual(clusterSums(rows.map(([, n]) => [0, n])));
    expect(shareBounds(against(undefined, part))).toEqual({ low: null, high: null });
  });

  it('clusterOf reads clusterJson’s array (numbers or numeric strings) and leaves none as none', () => {
    expect(clusterOf(['3', 5, 5, 7, 9, 3])).toEqual({ y: 3, n: 5, yy: 5, yn: 7, nn: 9, clusters: 3 });
    expect(clusterOf(null)).toBeUndefined();
    expect(shareBounds(undefined)).toEqual({ low: null, high: null });
    // An empty denominator is no share: null bounds, as the share is null.
    expect(shareBounds(clusterOf([0, 0, 0, 0, 0, 0]))).toEqual({ low: null, high: null });
  });
});
