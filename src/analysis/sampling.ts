import { clusteredShare, realChange, type ClusterSums } from './intervals.ts';

/**
 * How many answers a scan needs for a change in visibility to be called
 * real (docs/analysis.md "How many samples"): the report's own interval and
 * test (./intervals.ts `clusteredShare`, `realChange`) applied to the sums a
 * scan is expected to give, so the plan agrees with what the report and the
 * alerts will later say. Pure, like the rest of this folder.
 */

/**
 * The intraclass correlation of answers within prompts (how much more one
 * prompt's answers agree than two prompts' do), by the one-way ANOVA
 * estimator for binary outcomes: (MSB - MSW) / (MSB + (n0 - 1) MSW), held to
 * [0, 1]. `clusters` are each prompt's [answers naming the brand, answers].
 * Null when it cannot be told: fewer than two prompts, or no prompt with two
 * answers (between and within cannot be told apart).
 */
export function intraclassCorrelation(clusters: readonly (readonly [y: number, n: number])[]): number | null {
  const used = clusters.filter(([, n]) => n > 0);
  const m = used.length;
  const total = used.reduce((s, [, n]) => s + n, 0);
  if (m < 2 || total - m <= 0) return null;
  const p = used.reduce((s, [y]) => s + y, 0) / total;
  let between = 0;
  let within = 0;
  let squares = 0;
  for (const [y, n] of used) {
    const pi = y / n;
    between += n * (pi - p) ** 2;
    within += n * pi * (1 - pi);
    squares += n * n;
  }
  const msb = between / (m - 1);
  const msw = within / (total - m);
  const n0 = (total - squares / total) / (m - 1);
  const denominator = msb + (n0 - 1) * msw;
  if (!(denominator > 0)) return null;
  return Math.min(1, Math.max(0, (msb - msw) / denominator));
}

/**
 * The sums a scan of `prompts` prompts with `perPrompt` answers each is
 * expected to give when the brand is named in `share` of answers and answers
 * of one prompt correlate by `icc`: a prompt's named answers have variance
 * b·p(1-p)·(1 + (b-1)·icc), the design effect of equal clusters.
 */
export function expectedSums(prompts: number, perPrompt: number, share: number, icc: number): ClusterSums {
  const b = perPrompt;
  const p = Math.min(1, Math.max(0, share));
  const variance = b * p * (1 - p) * (1 + (b - 1) * icc);
  return {
    y: prompts * b * p,
    n: prompts * b,
    yy: prompts * (variance + b * b * p * p),
    yn: prompts * b * b * p,
    nn: prompts * b * b,
    clusters: prompts,
  };
}

/** Whether a move of `points` (percent) from `share` would be called real, both ways where both fit in 0-100%. */
export function detects(prompts: number, perPrompt: number, share: number, icc: number, points: number): boolean {
  const base = clusteredShare(expectedSums(prompts, perPrompt, share, icc));
  if (!base) return false;
  const moves = [share - points / 100, share + points / 100].filter((s) => s >= 0 && s <= 1);
  if (moves.length === 0) return false;
  return moves.every((s) => realChange(clusteredShare(expectedSums(prompts, perPrompt, s, icc)), base) === true);
}

/** The smallest move (points, one decimal) that would be called real; null when even 100 points would not. */
export function smallestRealChange(prompts: number, perPrompt: number, share: number, icc: number): number | null {
  for (let tenths = 1; tenths <= 1000; tenths++) {
    if (detects(prompts, perPrompt, share, icc, tenths / 10)) return tenths / 10;
  }
  return null;
}
