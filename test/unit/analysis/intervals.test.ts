import { describe, expect, it } from 'vitest';
import {
  clusterBootstrap,
  clusteredShare,
  clusterSums,
  countChange,
  createPrng,
  fisherExactPValue,
  normalCdf,
  realChange,
  tQuantile975,
  twoProportionPValue,
  wilson,
} from '../../../src/analysis/intervals.ts';

/** Known values from textbooks and R (binom.wilson, fisher.test, prop.test without continuity correction, qt). */

describe('wilson', () => {
  it('matches published intervals', () => {
    const w = wilson(5, 10);
    expect(w?.low).toBeCloseTo(0.2366, 4);
    expect(w?.high).toBeCloseTo(0.7634, 4);
    // Wilson (1927) / Newcombe (1998) example: 81 of 263.
    expect(wilson(81, 263)?.low).toBeCloseTo(0.2553, 4);
    expect(wilson(81, 263)?.high).toBeCloseTo(0.3662, 4);
    expect(wilson(0, 10)).toEqual({ low: 0, high: expect.closeTo(0.2775, 4) });
    expect(wilson(10, 10)?.low).toBeCloseTo(0.7225, 4);
    expect(wilson(10, 10)?.high).toBeCloseTo(1, 10);
  });

  it('is null without a trial and stays in [0, 1]', () => {
    expect(wilson(0, 0)).toBeNull();
    for (const [k, n] of [
      [0, 1],
      [1, 1],
      [3, 7],
      [999, 1000],
    ] as const) {
      const w = wilson(k, n) as { low: number; high: number };
      expect(w.low).toBeGreaterThanOrEqual(0);
      expect(w.high).toBeLessThanOrEqual(1);
      expect(w.low).toBeLessThanOrEqual(k / n);
      expect(w.high).toBeGreaterThanOrEqual(k / n);
    }
  });
});

describe('distributions', () => {
  it('normalCdf and the t quantiles', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
    expect(tQuantile975(1)).toBeCloseTo(12.7062, 4);
    expect(tQuantile975(10)).toBeCloseTo(2.228139, 6);
    expect(tQuantile975(60)).toBeCloseTo(2.000298, 5);
    expect(tQuantile975(120)).toBeCloseTo(1.97993, 5);
    expect(tQuantile975(100_000)).toBeCloseTo(1.96, 3);
  });
});

describe('tests of a change', () => {
  it('two-proportion z-test (pooled)', () => {
    // prop.test(c(45, 30), c(100, 100), correct = FALSE): X-squared = 4.8, p = 0.02846
    expect(twoProportionPValue(45, 100, 30, 100)).toBeCloseTo(0.02846, 4);
    expect(twoProportionPValue(0, 10, 0, 10)).toBe(1);
    expect(twoProportionPValue(1, 0, 1, 10)).toBeNull();
  });

  it("Fisher's exact test, two-sided", () => {
    // Fisher's tea tasting: 3 of 4 against 1 of 4.
    expect(fisherExactPValue(3, 4, 1, 4)).toBeCloseTo(0.485714, 5);
    // fisher.test(matrix(c(1, 9, 11, 3), 2)): p = 0.002759
    expect(fisherExactPValue(1, 10, 11, 14)).toBeCloseTo(0.002759, 5);
    expect(fisherExactPValue(0, 6, 4, 6)).toBeCloseTo(0.060606, 5);
    expect(fisherExactPValue(2, 2, 2, 2)).toBeCloseTo(1, 10);
  });

  it('a prompt named once in six answers then not at all is noise; six of six then none is real', () => {
    expect(countChange({ named: 0, answered: 6, previousNamed: 1, previousAnswered: 6 })).toEqual({
      pValue: 1,
      real: false,
    });
    expect(countChange({ named: 0, answered: 6, previousNamed: 6, previousAnswered: 6 })?.real).toBe(true);
    expect(countChange({ named: 0, answered: 0, previousNamed: 6, previousAnswered: 6 })).toBeNull();
  });

  it('realChange compares effective sizes', () => {
    const big = (y: number) =>
      clusteredShare(clusterSums(Array.from({ length: 400 }, (_, i) => [i < y ? 1 : 0, 1] as const)));
    expect(realChange(big(200), big(120))).toBe(true);
    expect(realChange(big(200), big(190))).toBe(false);
    expect(realChange(big(200), null)).toBeNull();
  });
});

describe('clusteredShare', () => {
  it('is the Wilson interval when each prompt gave one answer', () => {
    const s = clusteredShare(clusterSums(Array.from({ length: 263 }, (_, i) => [i < 81 ? 1 : 0, 1] as const)));
    expect(s?.method).toBe('wilson');
    expect(s?.low).toBeCloseTo(0.2553, 4);
    expect(s?.high).toBeCloseTo(0.3662, 4);
    expect(s?.designEffect).toBe(1);
  });

  it('widens when the answers of a prompt agree', () => {
    // 100 prompts x 6 answers: 30 prompts name the brand every time, the rest never (all agreement).
    const agree = clusteredShare(clusterSums(Array.from({ length: 100 }, (_, i) => [i < 30 ? 6 : 0, 6] as const)));
    const independent = wilson(180, 600);
    expect(agree?.share).toBeCloseTo(0.3, 10);
    expect(agree?.designEffect).toBeCloseTo(6 * (100 / 99), 6);
    expect((agree?.high ?? 0) - (agree?.low ?? 0)).toBeGreaterThan(
      2 * ((independent?.high ?? 0) - (independent?.low ?? 0)),
    );
    // About the interval of 30 in 100 independent prompts.
    expect(agree?.low).toBeCloseTo(wilson(30, 100)?.low as number, 2);
  });

  it('never claims more than independent answers would', () => {
    // Every prompt names the brand in exactly 3 of 6: no spread between prompts, design effect held at 1.
    const s = clusteredShare(clusterSums(Array.from({ length: 50 }, () => [3, 6] as const)));
    expect(s?.designEffect).toBe(1);
    expect(s?.high).toBeGreaterThan(0.5);
  });

  it('at 0% or 100% counts each prompt once', () => {
    const none = clusteredShare(clusterSums(Array.from({ length: 500 }, () => [0, 6] as const)));
    expect(none?.effectiveN).toBe(500);
    expect(none?.low).toBe(0);
    expect(none?.high).toBeCloseTo(wilson(0, 500)?.high as number, 10);
    expect(clusteredShare(clusterSums([]))).toBeNull();
    expect(clusteredShare(clusterSums([[2, 3]]))?.effectiveN).toBe(1);
  });

  it('agrees with a seeded cluster bootstrap over prompts', () => {
    const random = createPrng(11);
    const pairs: [number, number][] = [];
    for (let i = 0; i < 300; i++) {
      const p = random() < 0.5 ? 0.1 : 0.5;
      const n = 1 + Math.floor(random() * 6);
      let y = 0;
      for (let j = 0; j < n; j++) if (random() < p) y++;
      pairs.push([y, n]);
    }
    const analytic = clusteredShare(clusterSums(pairs)) as { low: number; high: number };
    const boot = clusterBootstrap(pairs, { seed: 5, resamples: 2000 }) as { low: number; high: number };
    expect(Math.abs(analytic.low - boot.low)).toBeLessThan(0.01);
    expect(Math.abs(analytic.high - boot.high)).toBeLessThan(0.01);
  });
});

describe('createPrng and clusterBootstrap', () => {
  it('are repeatable for a seed', () => {
    const a = createPrng(42);
    const b = createPrng(42);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    for (const x of xs) expect(x >= 0 && x < 1).toBe(true);
    const pairs = Array.from({ length: 40 }, (_, i) => [i % 3, 3] as const);
    expect(clusterBootstrap(pairs, { seed: 9 })).toEqual(clusterBootstrap(pairs, { seed: 9 }));
    expect(clusterBootstrap([], { seed: 9 })).toBeNull();
  });
});
