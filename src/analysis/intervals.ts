/**
 * How sure a share is, and whether a change of one is larger than its noise
 * (docs/analysis.md "Intervals and real changes"). Pure: no I/O, no clock;
 * the only randomness is the seeded generator below, so the same input
 * always gives the same answer.
 *
 * Shares here are proportions in [0, 1]; reports turn them into percent.
 */

/** The 97.5% quantile of the standard normal: a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

/** Below this p-value a change is larger than its noise (two-sided, 95%). */
export const ALPHA = 0.05;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval of `k` successes in `n` independent trials (95%
 * unless `z` says otherwise); null when there is no trial. `k` and `n` may
 * be fractional (effective counts). Wilson rather than the textbook
 * p ± z·se: it stays inside [0, 1] and keeps its coverage near 0% and 100%
 * and for small n, where a share of answers naming a brand often sits.
 */
export function wilson(k: number, n: number, z: number = Z95): Interval | null {
  if (!(n > 0)) return null;
  const p = Math.min(1, Math.max(0, k / n));
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Sums over clusters (prompts) of a ratio's numerator y_i and denominator
 * n_i: what a rollup query returns for one figure, so the interval costs
 * nothing per prompt at read time.
 */
export interface ClusterSums {
  /** Σ y_i: e.g. answers naming the brand. */
  y: number;
  /** Σ n_i: e.g. answers that did not fail. */
  n: number;
  /** Σ y_i². */
  yy: number;
  /** Σ y_i·n_i. */
  yn: number;
  /** Σ n_i². */
  nn: number;
  /** Clusters with n_i > 0. */
  clusters: number;
}

export function clusterSums(pairs: readonly (readonly [y: number, n: number])[]): ClusterSums {
  const s: ClusterSums = { y: 0, n: 0, yy: 0, yn: 0, nn: 0, clusters: 0 };
  for (const [y, n] of pairs) {
    s.y += y;
    s.n += n;
    s.yy += y * y;
    s.yn += y * n;
    s.nn += n * n;
    if (n > 0) s.clusters++;
  }
  return s;
}

export interface ShareEstimate extends Interval {
  share: number;
  /** Answers worth of independent evidence: n over the design effect (and the small-sample correction). */
  effectiveN: number;
  /** How much clustering widens the interval over independent answers (at least 1). */
  designEffect: number;
  /** `wilson` when every prompt gave at most one answer, else `clustered`. */
  method: 'wilson' | 'clustered';
}

/**
 * A 95% interval of the ratio Σy/Σn that respects that the answers of one
 * prompt are not independent (asked of several assistants, several times,
 * several days, one prompt's answers agree more than strangers' do).
 *
 * - Every prompt gave at most one answer: the Wilson interval over answers.
 * - Else the ratio's variance is estimated over prompts (the linearised,
 *   cluster-robust variance: m/(m-1) · Σ(y_i - R·n_i)² / N²), which gives the
 *   design effect against independent answers (never below 1); the Wilson
 *   interval is then taken on the effective number of answers N / deff,
 *   shrunk by (z / t_{m-1})² for few prompts (Korn & Graubard 1998). When
 *   the share is 0% or 100% the variance says nothing, and the prompts count
 *   as one answer each (the most the clustering can cost).
 *
 * Measured against a seeded cluster bootstrap over prompts and by coverage
 * in bench/coverage.ts; it costs O(1) from the sums, where the bootstrap
 * costs 1,000 resamples of every prompt for every figure.
 */
export function clusteredShare(s: ClusterSums, z: number = Z95): ShareEstimate | null {
  if (!(s.n > 0)) return null;
  const share = Math.min(1, Math.max(0, s.y / s.n));
  if (s.nn <= s.n) {
    // n_i² = n_i only for n_i in {0, 1}: one answer per prompt, independent answers.
    const w = wilson(s.y, s.n, z) as Interval;
    return { share, ...w, effectiveN: s.n, designEffect: 1, method: 'wilson' };
  }
  const m = s.clusters;
  let effectiveN: number;
  let designEffect: number;
  const binomial = share * (1 - share);
  if (m < 2 || binomial === 0) {
    effectiveN = Math.max(1, m);
    designEffect = s.n / effectiveN;
  } else {
    const squares = Math.max(0, s.yy - 2 * share * s.yn + share * share * s.nn);
    const variance = ((m / (m - 1)) * squares) / (s.n * s.n);
    designEffect = Math.max(1, variance / (binomial / s.n));
    const t = tQuantile975(m - 1);
    effectiveN = (s.n / designEffect) * ((z * z) / (t * t));
  }
  const w = wilson(share * effectiveN, effectiveN, z) as Interval;
  return {
    share,
    low: Math.min(w.low, share),
    high: Math.max(w.high, share),
    effectiveN,
    designEffect,
    method: 'clustered',
  };
}

/** Two-sided 95% quantiles of Student's t for 1 to 30 degrees of freedom. */
const T975 = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139, 2.200985,
  2.178813, 2.160369, 2.144787, 2.13145, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658,
  2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272,
];

/** The 97.5% quantile of Student's t with `df` degrees of freedom (a table to 30, then the Cornish-Fisher expansion). */
export function tQuantile975(df: number): number {
  if (df < 1) return Infinity;
  const whole = Math.floor(df);
  if (whole <= 30) return T975[whole - 1] as number;
  const z = Z95;
  const z3 = z ** 3;
  const z5 = z ** 5;
  const z7 = z ** 7;
  return (
    z +
    (z3 + z) / (4 * df) +
    (5 * z5 + 16 * z3 + 3 * z) / (96 * df ** 2) +
    (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * df ** 3)
  );
}

/** Complementary error function (Numerical Recipes' erfcc, relative error under 1.2e-7). */
function erfc(x: number): number {
  const a = Math.abs(x);
  const t = 1 / (1 + 0.5 * a);
  const r =
    t *
    Math.exp(
      -a * a -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** P(Z <= x) for a standard normal Z. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/**
 * Two-sided p-value of the pooled two-proportion z-test: k1 of n1 against
 * k0 of n0 (counts may be effective, i.e. fractional). 1 when the pooled
 * share is 0% or 100% (nothing moved); null when a side is empty.
 */
export function twoProportionPValue(k1: number, n1: number, k0: number, n0: number): number | null {
  if (!(n1 > 0) || !(n0 > 0)) return null;
  const pooled = (k1 + k0) / (n1 + n0);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n0));
  if (!(se > 0)) return 1;
  const z = Math.abs(k1 / n1 - k0 / n0) / se;
  return Math.min(1, 2 * (1 - normalCdf(z)));
}

/**
 * Whether a share moved by more than its noise between two periods: the
 * two-proportion z-test on each side's effective number of answers (so the
 * clustering that widened each interval widens the test too), p < 0.05.
 * Null when either side has no estimate.
 */
export function realChange(current: ShareEstimate | null, previous: ShareEstimate | null): boolean | null {
  if (!current || !previous) return null;
  const p = twoProportionPValue(
    current.share * current.effectiveN,
    current.effectiveN,
    previous.share * previous.effectiveN,
    previous.effectiveN,
  );
  return p === null ? null : p < ALPHA;
}

const logFactorials: number[] = [0];

function logFactorial(n: number): number {
  for (let i = logFactorials.length; i <= n; i++) logFactorials[i] = (logFactorials[i - 1] as number) + Math.log(i);
  return logFactorials[n] as number;
}

/**
 * Two-sided p-value of Fisher's exact test of k1 of n1 against k0 of n0
 * (whole counts): the probability, with the margins fixed, of a table at
 * most as likely as the one seen. Exact for the few answers one prompt has
 * in a period, where the z-test is not to be trusted. 1 when a side is empty.
 */
export function fisherExactPValue(k1: number, n1: number, k0: number, n0: number): number {
  if (n1 <= 0 || n0 <= 0) return 1;
  const successes = k1 + k0;
  const total = n1 + n0;
  const lo = Math.max(0, successes - n0);
  const hi = Math.min(successes, n1);
  const base =
    logFactorial(successes) +
    logFactorial(total - successes) +
    logFactorial(n1) +
    logFactorial(n0) -
    logFactorial(total);
  const logP = (x: number) =>
    base - logFactorial(x) - logFactorial(successes - x) - logFactorial(n1 - x) - logFactorial(n0 - successes + x);
  const observed = logP(k1);
  let p = 0;
  for (let x = lo; x <= hi; x++) {
    const lp = logP(x);
    // A relative tolerance, as R's fisher.test, so tables as likely as the one seen count despite rounding.
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

export interface CountChange {
  /** Answers naming the brand, and answers that did not fail, now and before. */
  named: number;
  answered: number;
  previousNamed: number;
  previousAnswered: number;
}

/** Fisher's exact test of one prompt's named answers now against before; null when a side has no answer. */
export function countChange(c: CountChange): { pValue: number; real: boolean } | null {
  if (c.answered <= 0 || c.previousAnswered <= 0) return null;
  const pValue = fisherExactPValue(c.named, c.answered, c.previousNamed, c.previousAnswered);
  return { pValue: Math.round(pValue * 10_000) / 10_000, real: pValue < ALPHA };
}

/** mulberry32: a small, fast, seeded generator of numbers in [0, 1). */
export function createPrng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Percentile cluster bootstrap of Σy/Σn: `resamples` times, draw as many
 * prompts as there are, with replacement, and take the ratio; the interval
 * is the middle 95% of those ratios. Seeded, so repeatable. The reference
 * `clusteredShare` is checked against (unit tests, bench/coverage.ts).
 */
export function clusterBootstrap(
  clusters: readonly (readonly [y: number, n: number])[],
  options: { resamples?: number; seed?: number } = {},
): Interval | null {
  const m = clusters.length;
  if (m === 0) return null;
  const ys = Float64Array.from(clusters, (c) => c[0]);
  const ns = Float64Array.from(clusters, (c) => c[1]);
  const random = createPrng(options.seed ?? 1);
  const resamples = options.resamples ?? 1000;
  const ratios: number[] = [];
  for (let b = 0; b < resamples; b++) {
    let y = 0;
    let n = 0;
    for (let j = 0; j < m; j++) {
      const i = Math.floor(random() * m);
      y += ys[i] as number;
      n += ns[i] as number;
    }
    if (n > 0) ratios.push(y / n);
  }
  if (ratios.length === 0) return null;
  ratios.sort((a, b) => a - b);
  const at = (q: number) =>
    ratios[Math.min(ratios.length - 1, Math.max(0, Math.round(q * (ratios.length - 1))))] as number;
  return { low: at(0.025), high: at(0.975) };
}
