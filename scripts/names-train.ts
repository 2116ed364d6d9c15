/**
 * Trains the reader of everyday-word names (src/analysis/reading.ts): an
 * L2-regularised logistic regression over the features of each labelled
 * occurrence of an ambiguous name in both labelled sets (test/fixtures/names,
 * the first set and fresh/), fitted by Newton's method, and writes the
 * weights to src/analysis/reader-weights.json, which the reader loads.
 *   node scripts/names-train.ts [--lambda 1] [--prior hand|none] [--write]
 * Without --write it prints the weights and the in-sample figures only.
 * Deterministic: the same cases and lambda give the same weights, byte for
 * byte (features in sorted order, a fixed number of exact Newton steps,
 * weights rounded to 1e-3).
 *
 * `lambda` was chosen by grouped cross-validation (names-cv.ts --lambdas),
 * not by the score on all of the data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ambiguousFeatures } from '../src/analysis/mentions.ts';
import type { ReaderModel } from '../src/analysis/reading.ts';
import { bookOf, keyOf } from './names-eval.ts';
import { developmentCases, type NameCase } from './names-set.ts';

export const WEIGHTS_FILE = new URL('../src/analysis/reader-weights.json', import.meta.url).pathname;

/** The regularisation the committed weights were fitted with (names-cv.ts --lambdas chose it). */
export const DEFAULT_LAMBDA = 1;

/**
 * The prior the weights are pulled towards instead of zero: the hand-set weights of the reader's second round
 * (names-prior.json), what a linguist's rules say each cue is worth. A feature the data says little about keeps
 * about its hand weight; one it says much about moves. Features without a hand weight are pulled towards zero.
 */
export const HAND_PRIOR: Readonly<Record<string, number>> = (
  JSON.parse(readFileSync(new URL('names-prior.json', import.meta.url), 'utf8')) as { weights: Record<string, number> }
).weights;

export function priorNamed(name: string): Readonly<Record<string, number>> {
  if (name === 'hand') return HAND_PRIOR;
  if (name === 'none') return {};
  throw new Error(`--prior must be hand or none, not "${name}"`);
}

export interface TrainingRow {
  id: string;
  features: string[];
  label: boolean;
}

/**
 * One row per ambiguous occurrence the analysis reads and the set labels: its features (mentions.ts
 * ambiguousFeatures, the deferred ones too) and whether it means its entity. A candidate overlapping no labelled
 * occurrence of its entity has no label and is left out.
 */
export function trainingRows(cases: readonly NameCase[]): TrainingRow[] {
  const rows: TrainingRow[] = [];
  for (const c of cases) {
    const book = bookOf(c);
    for (const f of ambiguousFeatures(c.answer, book)) {
      const entity = keyOf(book.entities[f.entity] ?? { kind: 'competitor', competitorId: null });
      const o = c.occurrences.find((x) => x.entity === entity && f.start < x.at + x.text.length && x.at < f.end);
      if (o !== undefined) rows.push({ id: c.id, features: f.features, label: o.means });
    }
  }
  return rows;
}

/** Solves A x = b for a symmetric positive definite A (Cholesky); A is n×n, row-major. */
function solve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let sum = a[i * n + j] ?? 0;
      for (let k = 0; k < j; k++) sum -= (l[i * n + k] ?? 0) * (l[j * n + k] ?? 0);
      if (i === j) l[i * n + i] = Math.sqrt(Math.max(sum, 1e-12));
      else l[i * n + j] = sum / (l[j * n + j] ?? 1);
    }
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let sum = b[i] ?? 0;
    for (let k = 0; k < i; k++) sum -= (l[i * n + k] ?? 0) * (y[k] ?? 0);
    y[i] = sum / (l[i * n + i] ?? 1);
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let sum = y[i] ?? 0;
    for (let k = i + 1; k < n; k++) sum -= (l[k * n + i] ?? 0) * (x[k] ?? 0);
    x[i] = sum / (l[i * n + i] ?? 1);
  }
  return x;
}

const STEPS = 30;

/**
 * Fits the weights: minimises the log loss plus lambda/2 times the squared weights (not the bias) by Newton's method.
 * Features are binary. Index 0 is the bias.
 */
export function fit(
  rows: readonly TrainingRow[],
  lambda: number,
  prior: Readonly<Record<string, number>> = {},
): ReaderModel {
  // A feature of the prior that no row shows keeps its prior weight: the data says nothing against it.
  const names = [...new Set([...rows.flatMap((r) => r.features), ...Object.keys(prior)])].sort();
  const index = new Map(names.map((n, i) => [n, i + 1]));
  const n = names.length + 1;
  const xs = rows.map((r) => [0, ...new Set(r.features.map((f) => index.get(f) ?? 0))]);
  const mean = Float64Array.from([0, ...names.map((name) => prior[name] ?? 0)]);
  const w = Float64Array.from(mean);
  for (let step = 0; step < STEPS; step++) {
    const h = new Float64Array(n * n);
    const g = new Float64Array(n);
    rows.forEach((r, k) => {
      const x = xs[k] ?? [];
      let z = 0;
      for (const i of x) z += w[i] ?? 0;
      const p = 1 / (1 + Math.exp(-z));
      const err = p - (r.label ? 1 : 0);
      const s = p * (1 - p);
      for (const i of x) {
        g[i] = (g[i] ?? 0) + err;
        for (const j of x) h[i * n + j] = (h[i * n + j] ?? 0) + s;
      }
    });
    for (let i = 1; i < n; i++) {
      g[i] = (g[i] ?? 0) + lambda * ((w[i] ?? 0) - (mean[i] ?? 0));
      h[i * n + i] = (h[i * n + i] ?? 0) + lambda;
    }
    // The bias alone is unpenalised; a tiny ridge keeps its row positive definite on any data.
    h[0] = (h[0] ?? 0) + 1e-9;
    const delta = solve(h, g, n);
    let moved = 0;
    for (let i = 0; i < n; i++) {
      w[i] = (w[i] ?? 0) - (delta[i] ?? 0);
      moved = Math.max(moved, Math.abs(delta[i] ?? 0));
    }
    if (moved < 1e-10) break;
  }
  const round = (x: number): number => Math.round(x * 1000) / 1000 || 0;
  const weights: Record<string, number> = {};
  names.forEach((name, i) => {
    const v = round(w[i + 1] ?? 0);
    if (v !== 0) weights[name] = v;
  });
  return { bias: round(w[0] ?? 0), weights };
}

/** The weights file: the model, and what it was fitted on and how. */
export function weightsFile(model: ReaderModel, lambda: number, prior: string, rows: readonly TrainingRow[]): string {
  const sorted = Object.fromEntries(Object.entries(model.weights).sort(([a], [b]) => a.localeCompare(b)));
  return `${JSON.stringify(
    {
      method: `L2-regularised logistic regression (lambda ${lambda}, ${prior === 'hand' ? 'towards the hand-set weights of scripts/names-prior.json' : 'towards zero'}), Newton's method, scripts/names-train.ts`,
      trainedOn: `${rows.length} labelled occurrences of ambiguous names in test/fixtures/names (the first set and fresh/)`,
      bias: model.bias,
      weights: sorted,
    },
    null,
    2,
  )}\n`;
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      options: {
        lambda: { type: 'string', default: String(DEFAULT_LAMBDA) },
        prior: { type: 'string', default: 'hand' },
        write: { type: 'boolean', default: false },
      },
    });
    const lambda = Number(values.lambda);
    if (!(lambda > 0)) throw new Error(`--lambda must be a number above 0, not "${values.lambda}"`);
    const rows = trainingRows(developmentCases());
    const model = fit(rows, lambda, priorNamed(values.prior));
    const file = weightsFile(model, lambda, values.prior, rows);
    if (values.write) {
      writeFileSync(WEIGHTS_FILE, file);
      process.stdout.write(
        `wrote ${WEIGHTS_FILE}: ${Object.keys(model.weights).length} weights from ${rows.length} rows\n`,
      );
    } else process.stdout.write(file);
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
