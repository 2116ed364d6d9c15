/**
 * Builds the labelled names set (test/fixtures/names/<kind>.json) from the
 * marked-up answers it is written in (test/fixtures/names/source/<kind>.txt,
 * format in the README there), so no offset is ever counted by hand:
 *   node scripts/names-build.ts [--set first|fresh|third]           write the JSON files, print counts
 *   node scripts/names-build.ts [--set first|fresh|third] --check   exit 1 when the JSON is not what the source builds
 * Every set without --set. Halves are decided here, before any scoring: in
 * the first set, within a kind, cases alternate dev, held, dev, ... in the
 * order the source lists them; every case of the fresh and third sets is held.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  caseProblems,
  caseSchema,
  foldText,
  KINDS,
  SET_NAMES,
  setNamed,
  SETS,
  trackedOf,
  type Kind,
  type NameCase,
  type NameSet,
  type Occurrence,
} from './names-set.ts';

const MARK = /⟦([+-])([^⟦⟧|]+)(?:\|([^⟦⟧]+))?⟧/g;

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** "Name | domain | alias, alias" */
function nameLine(value: string): { name: string; domain: string; list: string[] } {
  const [name = '', domain = '', list = ''] = value.split('|').map((s) => s.trim());
  return { name, domain, list: splitList(list) };
}

/** The answer without its marks, and each mark's place in it. */
function unmark(marked: string): {
  answer: string;
  marks: { at: number; text: string; means: boolean; note?: string }[];
} {
  const marks: { at: number; text: string; means: boolean; note?: string }[] = [];
  let answer = '';
  let last = 0;
  for (const m of marked.matchAll(MARK)) {
    answer += marked.slice(last, m.index);
    const text = m[2] ?? '';
    marks.push({ at: answer.length, text, means: m[1] === '+', ...(m[3] === undefined ? {} : { note: m[3].trim() }) });
    answer += text;
    last = m.index + m[0].length;
  }
  answer += marked.slice(last);
  if (/[⟦⟧]/.test(answer))
    throw new Error(`a mark is not closed: ${answer.slice(answer.search(/[⟦⟧]/) - 40, answer.search(/[⟦⟧]/) + 40)}`);
  return { answer, marks };
}

function parseCase(kind: Kind, index: number, block: string, halves: NameSet['halves']): NameCase {
  const lines = block.split('\n');
  const id = (lines.shift() ?? '').trim();
  const cut = lines.indexOf('---');
  if (cut < 0) throw new Error(`${id}: no "---" line before the answer`);
  const head = new Map<string, string>();
  for (const line of lines.slice(0, cut)) {
    const colon = line.indexOf(':');
    if (colon < 0) throw new Error(`${id}: header line without a colon: ${line}`);
    head.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const site = nameLine(head.get('site') ?? '');
  const competitors: NameCase['competitors'] = [];
  for (const [key, value] of head) {
    const m = /^competitor (\d+)$/.exec(key);
    if (m === null) continue;
    const c = nameLine(value);
    competitors.push({ id: Number(m[1]), name: c.name, aliases: c.list, domain: c.domain === '' ? null : c.domain });
  }
  const { answer, marks } = unmark(
    lines
      .slice(cut + 1)
      .join('\n')
      .replace(/^\n+/, '')
      .trimEnd(),
  );
  const partial = { site: { name: site.name, domain: site.domain, brandTerms: site.list }, competitors };
  const tracked = trackedOf(partial);
  const occurrences: Occurrence[] = marks.map((m) => {
    const t = tracked.find((x) => foldText(x.name) === foldText(m.text));
    if (t === undefined) throw new Error(`${id}: marked "${m.text}" is not a tracked name`);
    return {
      name: t.name,
      entity: t.entity,
      at: m.at,
      text: m.text,
      means: m.means,
      ...(m.note === undefined ? {} : { note: m.note }),
    };
  });
  const c = caseSchema.parse({
    id,
    kind,
    half: halves === 'held' || index % 2 === 1 ? 'held' : 'dev',
    prompt: head.get('prompt'),
    industry: head.get('industry'),
    ...partial,
    everyday: splitList(head.get('everyday') ?? ''),
    answer,
    occurrences,
  });
  const problems = caseProblems(c);
  if (problems.length > 0) throw new Error(problems.join('\n'));
  return c;
}

/** The cases of one kind's source file, in its order. Lines before the first "=== id" are comments. */
export function parseSource(kind: Kind, text: string, halves: NameSet['halves'] = 'alternate'): NameCase[] {
  const blocks = text.replace(/\r\n/g, '\n').split(/^=== /m).slice(1);
  const cases: NameCase[] = [];
  const problems: string[] = [];
  blocks.forEach((block, i) => {
    try {
      cases.push(parseCase(kind, i, block, halves));
    } catch (err) {
      problems.push((err as Error).message);
    }
  });
  if (problems.length > 0) throw new Error(`source/${kind}.txt:\n${problems.join('\n')}`);
  return cases;
}

export function buildKind(kind: Kind, set: NameSet = SETS.first): NameCase[] {
  return parseSource(kind, readFileSync(join(set.dir, 'source', `${kind}.txt`), 'utf8'), set.halves);
}

export function jsonOf(cases: readonly NameCase[]): string {
  return `${JSON.stringify(cases, null, 2)}\n`;
}

function counts(cases: readonly NameCase[]): string {
  const occ = cases.flatMap((c) => c.occurrences);
  const yes = occ.filter((o) => o.means).length;
  return `${cases.length} cases, ${occ.length} occurrences (${yes} mean the name, ${occ.length - yes} do not)`;
}

/** Builds (or checks) one set; returns how many of its files are stale or missing. */
function buildSet(label: string, set: NameSet, check: boolean): number {
  let stale = 0;
  const all: NameCase[] = [];
  for (const kind of KINDS) {
    if (!existsSync(join(set.dir, 'source', `${kind}.txt`))) {
      stale++;
      console.error(`${label}: source/${kind}.txt is missing`);
      continue;
    }
    const cases = buildKind(kind, set);
    all.push(...cases);
    const file = join(set.dir, `${kind}.json`);
    const text = jsonOf(cases);
    if (check) {
      let old = '';
      try {
        old = readFileSync(file, 'utf8');
      } catch {
        // a missing file is stale like a different one
      }
      if (old !== text) {
        stale++;
        console.error(`${label}: ${kind}.json is not what source/${kind}.txt builds`);
      }
    } else writeFileSync(file, text);
    const names = new Set(cases.flatMap((c) => c.everyday));
    console.log(
      `${label} ${kind}: ${counts(cases)}; ${names.size} names: ${[...names].join(', ')}; dev ${counts(cases.filter((c) => c.half === 'dev'))}`,
    );
  }
  console.log(`${label} all: ${counts(all)}; ${new Set(all.flatMap((c) => c.everyday)).size} everyday names`);
  return stale;
}

if (import.meta.main) {
  try {
    const { values } = parseArgs({ options: { set: { type: 'string' }, check: { type: 'boolean', default: false } } });
    const labels = values.set === undefined ? SET_NAMES : [values.set];
    let stale = 0;
    for (const label of labels) stale += buildSet(label, setNamed(label), values.check);
    if (stale > 0) process.exitCode = 1;
  } catch (err) {
    // A wrong argument or a source that does not build: say what, without a stack trace, and fail.
    console.error((err as Error).message);
    process.exitCode = 1;
  }
}
