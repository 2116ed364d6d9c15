/**
 * The labelled set of brand names that are everyday words
 * (test/fixtures/names, see its README): the shape of a case, loading, and
 * the integrity checks the scorer and the unit test rest on.
 *
 * Glossary. Tracked string: a name the site's brand book holds (brand name,
 * brand term, competitor name or alias) or a domain. Occurrence: a
 * case-insensitive, accent-insensitive whole-word match of a tracked string
 * in the answer, not inside a longer match ("monday" inside "monday.com" is
 * one occurrence, of the domain). Every occurrence carries a label: does it
 * mean that entity, as a careful reader reads it.
 *
 * The folding and word test here are the set's own, deliberately not
 * src/analysis/fold.ts: what counts as an occurrence to label must not move
 * when the code under evaluation changes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

export const NAMES_DIR = new URL('../test/fixtures/names/', import.meta.url).pathname;

/**
 * The sets, each a folder of <kind>.json built from source/<kind>.txt.
 * `first`: the set tuned on; its cases alternate dev, held, ... within a kind.
 * `fresh`: written later, before any tuning against it, by a writer who had
 * not read the reader's code; every case of it is held back (README there).
 * `third`: written after the fresh set had been scored and tuned on, the same
 * way and with new brands; every case of it is held back.
 */
export const SETS = {
  first: { dir: NAMES_DIR, halves: 'alternate' },
  fresh: { dir: new URL('../test/fixtures/names/fresh/', import.meta.url).pathname, halves: 'held' },
  third: { dir: new URL('../test/fixtures/names/third/', import.meta.url).pathname, halves: 'held' },
} as const;
export type SetName = keyof typeof SETS;
export type NameSet = (typeof SETS)[SetName];
export const SET_NAMES = Object.keys(SETS) as SetName[];

export function setNamed(name: string): NameSet {
  if (!Object.hasOwn(SETS, name)) throw new Error(`--set must be ${SET_NAMES.join(' or ')}, not "${name}"`);
  return SETS[name as SetName];
}

export const KINDS = [
  'weekday',
  'month',
  'fruit',
  'animal',
  'planet',
  'verb',
  'pronoun',
  'surname',
  'place',
  'two-letter',
  'always-capitalised',
  'common-noun',
] as const;
export const HALVES = ['dev', 'held'] as const;

const name = z.string().trim().min(1).max(100);

export const occurrenceSchema = z
  .object({
    /** the tracked string as the book holds it ("Monday", "monday.com") */
    name,
    entity: z.string().regex(/^(brand|competitor:\d+)$/),
    at: z.number().int().min(0),
    /** the answer's text at `at`, as written */
    text: z.string().min(1),
    means: z.boolean(),
    note: z.string().min(1).optional(),
  })
  .strict();

export const caseSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9-]+$/),
    kind: z.enum(KINDS),
    half: z.enum(HALVES),
    prompt: z.string().min(1),
    industry: z.string().min(1),
    site: z.object({ name, domain: name, brandTerms: z.array(name) }).strict(),
    competitors: z
      .array(
        z.object({ id: z.number().int().positive(), name, aliases: z.array(name), domain: name.nullable() }).strict(),
      )
      .min(1)
      .max(4),
    /** the tracked names of this case that are everyday words of its kind (what the kind's name count is made of) */
    everyday: z.array(name).min(1),
    answer: z.string().min(1),
    occurrences: z.array(occurrenceSchema),
  })
  .strict();

export type NameCase = z.infer<typeof caseSchema>;
export type Occurrence = z.infer<typeof occurrenceSchema>;
export type Kind = NameCase['kind'];
export type Half = NameCase['half'];

export interface Tracked {
  name: string;
  entity: string;
}

export interface Found extends Tracked {
  at: number;
  text: string;
}

const WORD = /[\p{L}\p{N}\p{M}]/u;

function foldUnit(ch: string): string {
  if (ch === '\u2019' || ch === '\u2018' || ch === '\u02BC') return "'";
  const base = ch.normalize('NFD').charAt(0);
  const lower = (base === '' ? ch : base).toLowerCase();
  return lower.length === 1 ? lower : ch;
}

/** lower case, accents dropped, curly apostrophes straight; one unit per unit so offsets carry over */
export function foldText(text: string): string {
  let out = '';
  for (const ch of text.split('')) out += ch.length === 1 && (ch < '\uD800' || ch > '\uDFFF') ? foldUnit(ch) : ch;
  return out;
}

function isWord(text: string, i: number): boolean {
  if (i < 0 || i >= text.length) return false;
  const ch = text.charAt(i);
  return ch < '\uD800' || ch > '\uDFFF' ? WORD.test(ch) : false;
}

/** Every tracked string of a case with its entity: the brand's name, terms and domain, each competitor's name, aliases and domain. */
export function trackedOf(c: Pick<NameCase, 'site' | 'competitors'>): Tracked[] {
  const out: Tracked[] = [c.site.name, ...c.site.brandTerms, c.site.domain].map((n) => ({ name: n, entity: 'brand' }));
  for (const comp of c.competitors) {
    for (const n of [comp.name, ...comp.aliases, ...(comp.domain === null ? [] : [comp.domain])])
      out.push({ name: n, entity: `competitor:${comp.id}` });
  }
  return out;
}

/** The entity's display name: the brand's or the competitor's name. */
export function entityName(c: Pick<NameCase, 'site' | 'competitors'>, entity: string): string {
  if (entity === 'brand') return c.site.name;
  return c.competitors.find((comp) => `competitor:${comp.id}` === entity)?.name ?? entity;
}

/**
 * Whole-word occurrences of the tracked strings in `text`, in text order.
 * A match inside a longer match is dropped (the longer one is the
 * occurrence). Throws when one folded string belongs to two entities, since
 * its occurrences could not be labelled with one entity.
 */
export function findOccurrences(text: string, tracked: readonly Tracked[]): Found[] {
  const owners = new Map<string, Tracked>();
  for (const t of tracked) {
    const key = foldText(t.name);
    const seen = owners.get(key);
    if (seen !== undefined && seen.entity !== t.entity)
      throw new Error(`"${t.name}" names both ${seen.entity} and ${t.entity}`);
    if (seen === undefined) owners.set(key, t);
  }
  const folded = foldText(text);
  const all: Found[] = [];
  for (const [key, t] of owners) {
    for (let at = folded.indexOf(key); at >= 0; at = folded.indexOf(key, at + 1)) {
      if (isWord(folded, at - 1) || isWord(folded, at + key.length)) continue;
      all.push({ name: t.name, entity: t.entity, at, text: text.slice(at, at + key.length) });
    }
  }
  all.sort((a, b) => b.text.length - a.text.length || a.at - b.at);
  const kept: Found[] = [];
  for (const f of all) {
    if (kept.some((k) => f.at >= k.at && f.at + f.text.length <= k.at + k.text.length)) continue;
    kept.push(f);
  }
  return kept.sort((a, b) => a.at - b.at);
}

/**
 * Problems of one case, as sentences: offsets that do not hold their text,
 * whole-word occurrences without a label, labels on no occurrence, labels
 * naming the wrong entity or a string the book does not hold.
 */
export function caseProblems(c: NameCase): string[] {
  const problems: string[] = [];
  const tracked = trackedOf(c);
  for (const o of c.occurrences) {
    if (c.answer.slice(o.at, o.at + o.text.length) !== o.text)
      problems.push(`${c.id}: offset ${o.at} does not hold "${o.text}"`);
    const t = tracked.find((x) => x.name === o.name);
    if (t === undefined) problems.push(`${c.id}: "${o.name}" at ${o.at} is not a tracked name of the case`);
    else if (t.entity !== o.entity)
      problems.push(`${c.id}: "${o.name}" at ${o.at} is ${t.entity}, labelled ${o.entity}`);
  }
  let found: Found[] = [];
  try {
    found = findOccurrences(c.answer, tracked);
  } catch (err) {
    problems.push(`${c.id}: ${(err as Error).message}`);
  }
  const key = (x: { at: number; text: string }): string => `${x.at}:${x.text.length}`;
  const labelled = new Map(c.occurrences.map((o) => [key(o), o]));
  if (labelled.size !== c.occurrences.length) problems.push(`${c.id}: an occurrence is labelled twice`);
  const expected = new Set(found.map(key));
  for (const f of found) {
    const o = labelled.get(key(f));
    if (o === undefined)
      problems.push(
        `${c.id}: "${f.text}" at ${f.at} has no label: ...${c.answer.slice(Math.max(0, f.at - 40), f.at + f.text.length + 40)}...`,
      );
    else if (o.entity !== f.entity)
      problems.push(`${c.id}: "${f.text}" at ${f.at} is ${f.entity}, labelled ${o.entity}`);
  }
  for (const o of c.occurrences)
    if (!expected.has(key(o)))
      problems.push(`${c.id}: the label at ${o.at} ("${o.text}") is not a whole-word occurrence`);
  for (const e of c.everyday)
    if (!tracked.some((t) => t.name === e)) problems.push(`${c.id}: everyday name "${e}" is not tracked`);
  return problems;
}

/** The committed set: test/fixtures/names/<kind>.json for every kind, parsed and validated. */
export function loadNameSet(dir = NAMES_DIR): NameCase[] {
  const cases: NameCase[] = [];
  for (const kind of KINDS) {
    const file = `${kind}.json`;
    const parsed = z.array(caseSchema).safeParse(JSON.parse(readFileSync(join(dir, file), 'utf8')));
    if (!parsed.success) throw new Error(`${file}: ${z.prettifyError(parsed.error)}`);
    const strays = parsed.data.filter((c) => c.kind !== kind);
    if (strays.length > 0)
      throw new Error(`${file} holds cases of another kind: ${strays.map((c) => c.id).join(', ')}`);
    cases.push(...parsed.data);
  }
  return cases;
}

/** Every case of both sets, the development data, in a fixed order (the first set, then fresh; each by kind). */
export function developmentCases(): NameCase[] {
  return [...loadCheckedNameSet(SETS.first.dir), ...loadCheckedNameSet(SETS.fresh.dir)];
}

/** Loads the set and refuses it, naming every problem, unless every case holds together. */
export function loadCheckedNameSet(dir = NAMES_DIR): NameCase[] {
  const cases = loadNameSet(dir);
  const problems = cases.flatMap(caseProblems);
  const ids = new Set<string>();
  for (const c of cases) {
    if (ids.has(c.id)) problems.push(`${c.id}: id used twice`);
    ids.add(c.id);
  }
  if (problems.length > 0) throw new Error(`the names set is not consistent:\n${problems.join('\n')}`);
  return cases;
}
