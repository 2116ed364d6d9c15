import { describe, expect, it } from 'vitest';
import { clusteredShare, createPrng, realChange } from '../../../src/analysis/intervals.ts';
import { detects, expectedSums, intraclassCorrelation, smallestRealChange } from '../../../src/analysis/sampling.ts';

/**
 * The sampling plan's arithmetic (docs/analysis.md "How many samples"): the
 * correlation within prompts measured from answers, the sums a scan is
 * expected to give, and whether the report's own interval and test would
 * call a move real on them.
 */

describe('intraclassCorrelation', () => {
  it('is 1 when every prompt always answers the same way, 0 when prompts do not differ', () => {
    expect(
      intraclassCorrelation([
        [4, 4],
        [0, 4],
        [4, 4],
        [0, 4],
      ]),
    ).toBe(1);
    expect(
      intraclassCorrelation([
        [2, 4],
        [2, 4],
        [2, 4],
      ]),
    ).toBe(0);
  });

  it('cannot be told from one answer per prompt, or from one prompt', () => {
    expect(
      intraclassCorrelation([
        [1, 1],
        [0, 1],
        [1, 1],
      ]),
    ).toBeNull();
    expect(intraclassCorrelation([[3, 10]])).toBeNull();
  });

  it('recovers a known correlation from simulated answers (prompts naming the brand 10% or 50% of the time: 0.19)', () => {
    const random = createPrng(7);
    const clusters: [number, number][] = [];
    for (let i = 0; i < 3000; i++) {
      const p = i % 2 === 0 ? 0.1 : 0.5;
      let y = 0;
      for (let j = 0; j < 10; j++) if (random() < p) y++;
      clusters.push([y, 10]);
    }
    // Var(p_i) / (p (1 - p)) = 0.04 / 0.21.
    expect(intraclassCorrelation(clusters)).toBeCloseTo(0.04 / 0.21, 1);
  });
});

describe('expectedSums', () => {
  it('gives the report’s interval the design effect of equal clusters, m/(m-1)·(1 + (b-1)·icc)', () => {
    const e = clusteredShare(expectedSums(50, 4, 0.3, 0.2));
    expect(e?.share).toBeCloseTo(0.3, 10);
    expect(e?.designEffect).toBeCloseTo((50 / 49) * (1 + 3 * 0.2), 6);
    expect(e?.method).toBe('clustered');
  });

  it('one answer per prompt: the Wilson interval over answers, as the report', () => {
    expect(clusteredShare(expectedSums(30, 1, 0.9, 0.5))?.method).toBe('wilson');
  });
});

describe('detects and smallestRealChange', () => {
  it('agree with realChange on the expected sums of both sides', () => {
    const base = clusteredShare(expectedSums(30, 1, 0.9, 0));
    expect(detects(30, 1, 0.9, 0, 10)).toBe(
      realChange(clusteredShare(expectedSums(30, 1, 0.8, 0)), base) &&
        realChange(clusteredShare(expectedSums(30, 1, 1, 0)), base),
    );
    // 90% -> 16.7% of 30 answers is real; 100% -> 90% is not (the integration tests' scans).
    expect(detects(30, 1, 0.9, 0, 73.3)).toBe(true);
  });

  it('needs smaller moves with more answers per prompt, and larger ones when prompts differ more', () => {
    const moves = [1, 2, 3, 4, 5].map((n) => smallestRealChange(40, 2 * n, 0.3, 0.2) as number);
    for (let i = 1; i < moves.length; i++) expect(moves[i]).toBeLessThanOrEqual(moves[i - 1] as number);
    expect(moves[4]).toBeLessThan(moves[0] as number);
    expect(smallestRealChange(40, 6, 0.3, 0.6) as number).toBeGreaterThan(
      smallestRealChange(40, 6, 0.3, 0.05) as number,
    );
  });

  it('with prompts that always agree, more samples of the same prompts barely help', () => {
    const one = smallestRealChange(40, 2, 0.3, 1) as number;
    const five = smallestRealChange(40, 10, 0.3, 1) as number;
    expect(five).toBeGreaterThan(one * 0.9);
  });

  it('is the smallest move that is detected', () => {
    const d = smallestRealChange(100, 3, 0.4, 0.1) as number;
    expect(detects(100, 3, 0.4, 0.1, d)).toBe(true);
    expect(detects(100, 3, 0.4, 0.1, Math.round((d - 0.1) * 10) / 10)).toBe(false);
  });
});
