/**
 * Scores the answer analysis against the labelled names set
 * (test/fixtures/names, README there):
 *   node scripts/names-eval.ts [--set first|fresh|third] [--half dev|held|all] [--json]
 * The first set's dev half by default. The first set (both halves) and the
 * fresh set are development data now (each was scored once as held-back, on
 * 2026-11-26, then looked at); `--set third` scores the third held-back set,
 * all held (scored once, on 2026-11-27; docs/analysis.md).
 *
 * Two levels. Pairs: for each (case, entity), does `analyse()` list the
 * entity in `brands`, against gold "some occurrence of it means it".
 * Occurrences: for each labelled occurrence, does the analysis's own mention
 * list (`findMentions`, what `analyse` counts and ranks from) hold a mention
 * of that entity overlapping it. Mentions overlapping no labelled occurrence
 * of their entity are listed apart: the set has no whole-word occurrence
 * there, so they are neither right nor wrong, only worth a look.
 */
import { parseArgs } from 'node:util';
import { analyse, compileBrandBook, type BrandBook } from '../src/analysis/index.ts';
import { findMentions } from '../src/analysis/mentions.ts';
import type { ReaderModel } from '../src/analysis/reading.ts';
import {
  entityName,
  HALVES,
  KINDS,
  loadCheckedNameSet,
  setNamed,
  type Half,
  type Kind,
  type NameCase,
  type NameSet,
} from './names-set.ts';

export interface PairResult {
  id: string;
  kind: Kind;
  half: Half;
  entity: string;
  name: string;
  gold: boolean;
  predicted: boolean;
}

export interface OccurrenceResult {
  id: string;
  kind: Kind;
  half: Half;
  entity: string;
  at: number;
  text: string;
  gold: boolean;
  predicted: boolean;
  context: string;
}

export interface StrayMention {
  id: string;
  half: Half;
  entity: string;
  at: number;
  text: string;
}

export interface Figures {
  n: number;
  goldYes: number;
  predictedYes: number;
  tp: number;
  fp: number;
  fn: number;
  tn: number;
  /** percentages, null where the denominator is 0 */
  accuracy: number | null;
  precision: number | null;
  recall: number | null;
}

export function figuresOf(rows: readonly { gold: boolean; predicted: boolean }[]): Figures {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let tn = 0;
  for (const r of rows) {
    if (r.gold && r.predicted) tp++;
    else if (r.predicted) fp++;
    else if (r.gold) fn++;
    else tn++;
  }
  const pct = (num: number, den: number): number | null => (den === 0 ? null : Math.round((1000 * num) / den) / 10);
  return {
    n: rows.length,
    goldYes: tp + fn,
    predictedYes: tp + fp,
    tp,
    fp,
    fn,
    tn,
    accuracy: pct(tp + tn, rows.length),
    precision: pct(tp, tp + fp),
    recall: pct(tp, tp + fn),
  };
}

/** The brand book of a case: its site and competitors. */
export function bookOf(c: NameCase): BrandBook {
  return compileBrandBook({
    name: c.site.name,
    brandTerms: c.site.brandTerms,
    domain: c.site.domain,
    competitors: c.competitors.map(({ id, name, aliases, domain }) => ({ id, name, aliases, domain })),
  });
}

export function keyOf(e: { kind: 'brand' | 'competitor'; competitorId: number | null }): string {
  return e.kind === 'brand' ? 'brand' : `competitor:${e.competitorId}`;
}

function contextOf(text: string, at: number, length: number): string {
  return `${text.slice(Math.max(0, at - 40), at)}[${text.slice(at, at + length)}]${text.slice(at + length, at + length + 40)}`.replace(
    /\s+/g,
    ' ',
  );
}

/**
 * Runs the analysis over the cases and judges every (case, entity) pair and every labelled occurrence. `model`: read
 * with these weights instead of the committed ones (cross-validation); pairs are then the entities of the mentions,
 * which is what `analyse` lists in `brands` (no corrections here).
 */
export function scoreCases(
  cases: readonly NameCase[],
  model?: ReaderModel,
): {
  pairs: PairResult[];
  occurrences: OccurrenceResult[];
  strays: StrayMention[];
} {
  const pairs: PairResult[] = [];
  const occurrences: OccurrenceResult[] = [];
  const strays: StrayMention[] = [];
  for (const c of cases) {
    const book = bookOf(c);
    const found = findMentions(c.answer, book, undefined, model);
    const named =
      model === undefined
        ? new Set(analyse({ text: c.answer, citations: [], failed: false }, book).brands.map(keyOf))
        : new Set(found.map((m) => keyOf(book.entities[m.entity] ?? { kind: 'competitor', competitorId: null })));
    for (const entity of ['brand', ...c.competitors.map((comp) => `competitor:${comp.id}`)]) {
      const gold = c.occurrences.some((o) => o.entity === entity && o.means);
      pairs.push({
        id: c.id,
        kind: c.kind,
        half: c.half,
        entity,
        name: entityName(c, entity),
        gold,
        predicted: named.has(entity),
      });
    }
    const mentions = found.map((m) => ({
      ...m,
      key: keyOf(book.entities[m.entity] ?? { kind: 'competitor', competitorId: null }),
    }));
    const overlaps = (m: { start: number; end: number }, o: { at: number; text: string }): boolean =>
      m.start < o.at + o.text.length && o.at < m.end;
    for (const o of c.occurrences) {
      const predicted = mentions.some((m) => m.key === o.entity && overlaps(m, o));
      occurrences.push({
        id: c.id,
        kind: c.kind,
        half: c.half,
        entity: o.entity,
        at: o.at,
        text: o.text,
        gold: o.means,
        predicted,
        context: contextOf(c.answer, o.at, o.text.length),
      });
    }
    for (const m of mentions) {
      if (!c.occurrences.some((o) => o.entity === m.key && overlaps(m, o)))
        strays.push({ id: c.id, half: c.half, entity: m.key, at: m.start, text: c.answer.slice(m.start, m.end) });
    }
  }
  return { pairs, occurrences, strays };
}

export interface Row {
  group: string;
  figures: Figures;
}

/** One row per kind, one per half, one for everything scored. */
export function rowsOf(
  rows: readonly { kind: Kind; half: Half; gold: boolean; predicted: boolean }[],
  halves: readonly Half[],
): Row[] {
  const out: Row[] = [];
  for (const kind of KINDS) {
    const mine = rows.filter((r) => r.kind === kind);
    if (mine.length > 0) out.push({ group: kind, figures: figuresOf(mine) });
  }
  for (const half of halves)
    out.push({ group: `half: ${half}`, figures: figuresOf(rows.filter((r) => r.half === half)) });
  out.push({ group: 'all scored', figures: figuresOf(rows) });
  return out;
}

function cell(value: number | null): string {
  return value === null ? '–' : value.toFixed(1);
}

export function markdownTable(title: string, rows: readonly Row[]): string {
  const lines = [
    `### ${title}`,
    '',
    '| group | n | gold yes | predicted yes | accuracy % | precision % | recall % | false yes | false no |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const { group, figures: f } of rows)
    lines.push(
      `| ${group} | ${f.n} | ${f.goldYes} | ${f.predictedYes} | ${cell(f.accuracy)} | ${cell(f.precision)} | ${cell(f.recall)} | ${f.fp} | ${f.fn} |`,
    );
  return lines.join('\n');
}

function halvesOf(arg: string | undefined, set: NameSet): Half[] {
  if (arg === undefined) return set.halves === 'held' ? ['held'] : ['dev'];
  if (arg === 'dev') return ['dev'];
  if (arg === 'held') return ['held'];
  if (arg === 'all') return [...HALVES];
  throw new Error(`--half must be dev, held or all, not "${arg}"`);
}

function report(set: NameSet, halves: Half[], json: boolean): string {
  const cases = loadCheckedNameSet(set.dir).filter((c) => halves.includes(c.half));
  const { pairs, occurrences, strays } = scoreCases(cases);
  const pairRows = rowsOf(pairs, halves);
  const occurrenceRows = rowsOf(occurrences, halves);
  // Both halves of this set are development data now, so both are shown case by case.
  const shown = (h: Half) => halves.includes(h);
  const wrongPairs = pairs.filter((p) => shown(p.half) && p.gold !== p.predicted);
  const wrongOccurrences = occurrences.filter((o) => shown(o.half) && o.gold !== o.predicted);
  const devStrays = strays.filter((s) => shown(s.half));
  if (json)
    return JSON.stringify(
      {
        halves,
        cases: cases.length,
        pairs: pairRows,
        occurrences: occurrenceRows,
        wrongPairs,
        wrongOccurrences,
        strays: devStrays,
      },
      null,
      2,
    );
  const out = [
    `# Names set: ${cases.length} cases, half ${halves.join(' + ')}`,
    '',
    markdownTable('(case, entity) pairs: analyse() lists the entity in brands', pairRows),
    '',
    markdownTable('Occurrences: a mention of the entity overlaps the labelled occurrence', occurrenceRows),
  ];
  {
    const which = halves.join(' + ');
    out.push(
      '',
      `### Wrong (case, entity) pairs, ${which} (${wrongPairs.length})`,
      '',
      '| case | kind | entity | gold | predicted |',
      '|---|---|---|---|---|',
    );
    for (const p of wrongPairs)
      out.push(
        `| ${p.id} | ${p.kind} | ${p.name} (${p.entity}) | ${p.gold ? 'named' : 'not named'} | ${p.predicted ? 'named' : 'not named'} |`,
      );
    out.push('', `### Wrong occurrences, ${which} (${wrongOccurrences.length})`, '');
    for (const o of wrongOccurrences)
      out.push(
        `- ${o.id} ${o.half} ${o.entity} @${o.at}: gold ${o.gold ? 'means' : 'not'}, predicted ${o.predicted ? 'means' : 'not'} — ${o.context}`,
      );
    out.push('', `### Mentions on no labelled occurrence, ${which} (${devStrays.length})`, '');
    for (const s of devStrays) out.push(`- ${s.id} ${s.entity} @${s.at}: "${s.text}"`);
  }
  return out.join('\n');
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({
      options: {
        set: { type: 'string', default: 'first' },
        half: { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
    const set = setNamed(values.set);
    process.stdout.write(`${report(set, halvesOf(values.half, set), values.json)}\n`);
  } catch (err) {
    // A wrong argument or an inconsistent set: say what, without a stack trace, and fail.
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
