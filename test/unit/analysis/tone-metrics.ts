import type { Tone } from '../../../src/analysis/index.ts';

export const TONES: readonly Tone[] = ['positive', 'neutral', 'negative'];

/** Three-class figures, in percent with one decimal. */
export interface ToneFigures {
  total: number;
  accuracy: number;
  /** share of each class's items given that class */
  recall: Record<Tone, number>;
  /** mean over the three classes of F1 (harmonic mean of precision and recall) */
  macroF1: number;
}

const pct = (x: number): number => Math.round(1000 * x) / 10;

/** Figures of predicted tones against labels, item by item. */
export function toneFigures(pairs: Iterable<{ label: Tone; predicted: Tone }>): ToneFigures {
  const count = new Map<string, number>();
  for (const { label, predicted } of pairs)
    count.set(`${label}>${predicted}`, (count.get(`${label}>${predicted}`) ?? 0) + 1);
  return figuresOfCells((label, predicted) => count.get(`${label}>${predicted}`) ?? 0);
}

/** Figures of a confusion matrix: `cell(label, predicted)` is how many items of that label were given that tone. */
export function figuresOfCells(cell: (label: Tone, predicted: Tone) => number): ToneFigures {
  const recall = { positive: 0, neutral: 0, negative: 0 };
  let total = 0;
  let right = 0;
  let f1Sum = 0;
  for (const c of TONES) {
    const hit = cell(c, c);
    const labelled = TONES.reduce((s, p) => s + cell(c, p), 0);
    const predicted = TONES.reduce((s, l) => s + cell(l, c), 0);
    const r = labelled === 0 ? 0 : hit / labelled;
    const p = predicted === 0 ? 0 : hit / predicted;
    recall[c] = pct(r);
    f1Sum += p + r === 0 ? 0 : (2 * p * r) / (p + r);
    right += hit;
    total += labelled;
  }
  return { total, accuracy: pct(total === 0 ? 0 : right / total), recall, macroF1: pct(f1Sum / 3) };
}
