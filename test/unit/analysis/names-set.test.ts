import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildKind, jsonOf, parseSource } from '../../../scripts/names-build.ts';
import {
  caseProblems,
  findOccurrences,
  foldText,
  HALVES,
  KINDS,
  loadNameSet,
  NAMES_DIR,
  SETS,
  type NameCase,
} from '../../../scripts/names-set.ts';

/**
 * Integrity of the labelled names set (test/fixtures/names/README.md): sizes,
 * halves, offsets, a label on every whole-word occurrence of every tracked
 * name. No accuracy here: the set is scored by scripts/names-eval.ts.
 */
const CASES = loadNameSet();

function occurrencesOf(cases: readonly NameCase[]): number {
  return cases.reduce((sum, c) => sum + c.occurrences.length, 0);
}

function namesOf(cases: readonly NameCase[]): Set<string> {
  return new Set(cases.flatMap((c) => c.everyday));
}

describe('names set: size', () => {
  it('holds at least 480 labelled occurrences over at least 48 everyday-word names', () => {
    expect(occurrencesOf(CASES)).toBeGreaterThanOrEqual(480);
    expect(namesOf(CASES).size).toBeGreaterThanOrEqual(48);
  });

  it.each(KINDS)('kind %s: at least 4 names and 30 occurrences in each half', (kind) => {
    for (const half of HALVES) {
      const cases = CASES.filter((c) => c.kind === kind && c.half === half);
      expect(namesOf(cases).size, `${kind} ${half} names`).toBeGreaterThanOrEqual(4);
      expect(occurrencesOf(cases), `${kind} ${half} occurrences`).toBeGreaterThanOrEqual(30);
    }
  });

  it.each(KINDS)('kind %s: both verdicts are well represented (at least 10 occurrences each way)', (kind) => {
    const occurrences = CASES.filter((c) => c.kind === kind).flatMap((c) => c.occurrences);
    expect(occurrences.filter((o) => o.means).length).toBeGreaterThanOrEqual(10);
    expect(occurrences.filter((o) => !o.means).length).toBeGreaterThanOrEqual(10);
  });
});

describe('names set: halves', () => {
  it.each(KINDS)('kind %s alternates dev, held, ... in source order', (kind) => {
    const cases = CASES.filter((c) => c.kind === kind);
    expect(cases.map((c) => c.half)).toEqual(cases.map((_, i) => (i % 2 === 0 ? 'dev' : 'held')));
  });
});

describe('names set: every case holds together', () => {
  it('every offset holds its text, every whole-word occurrence has a label, every label an occurrence', () => {
    expect(CASES.flatMap(caseProblems)).toEqual([]);
  });

  it('ids are unique', () => {
    const ids = CASES.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('no answer appears twice (compared lower case, whitespace collapsed)', () => {
    const answers = CASES.map((c) => c.answer.toLowerCase().replace(/\s+/g, ' ').trim());
    expect(new Set(answers).size).toBe(answers.length);
  });

  it.each(KINDS)('%s: the JSON file is what its source file builds', (kind) => {
    expect(readFileSync(join(NAMES_DIR, `${kind}.json`), 'utf8')).toBe(jsonOf(buildKind(kind)));
  });
});

/**
 * The fresh set (README "The fresh held-back set"): written before any tuning
 * against it, every case held back. The first set above is development data.
 */
describe('fresh names set', () => {
  const FRESH = loadNameSet(SETS.fresh.dir);

  it('holds at least 440 labelled occurrences in at least 90 answers over at least 45 everyday-word names', () => {
    expect(occurrencesOf(FRESH)).toBeGreaterThanOrEqual(440);
    expect(FRESH.length).toBeGreaterThanOrEqual(90);
    expect(namesOf(FRESH).size).toBeGreaterThanOrEqual(45);
  });

  it.each(KINDS)('kind %s: at least 30 occurrences, at least 10 each way', (kind) => {
    const occurrences = FRESH.filter((c) => c.kind === kind).flatMap((c) => c.occurrences);
    expect(occurrences.length).toBeGreaterThanOrEqual(30);
    expect(occurrences.filter((o) => o.means).length).toBeGreaterThanOrEqual(10);
    expect(occurrences.filter((o) => !o.means).length).toBeGreaterThanOrEqual(10);
  });

  it('is all held back', () => {
    expect(FRESH.filter((c) => c.half !== 'held').map((c) => c.id)).toEqual([]);
  });

  it('every offset holds its text, every whole-word occurrence has a label, every label an occurrence', () => {
    expect(FRESH.flatMap(caseProblems)).toEqual([]);
  });

  it('shares no id and no answer with the first set, nor repeats one of its own', () => {
    const all = [...CASES, ...FRESH];
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    expect(new Set(all.map((c) => c.answer.toLowerCase().replace(/\s+/g, ' ').trim())).size).toBe(all.length);
  });

  it.each(KINDS)('%s: the JSON file is what its source file builds', (kind) => {
    expect(readFileSync(join(SETS.fresh.dir, `${kind}.json`), 'utf8')).toBe(jsonOf(buildKind(kind, SETS.fresh)));
  });
});

/**
 * The third set (README "The third held-back set"): written after the fresh set
 * had been scored and tuned on, with new brands; every case held back. The
 * first and fresh sets are development data.
 */
describe('third names set', () => {
  const FRESH = loadNameSet(SETS.fresh.dir);
  const THIRD = loadNameSet(SETS.third.dir);

  it('holds at least 600 labelled occurrences in at least 130 answers over at least 60 everyday-word names', () => {
    expect(occurrencesOf(THIRD)).toBeGreaterThanOrEqual(600);
    expect(THIRD.length).toBeGreaterThanOrEqual(130);
    expect(namesOf(THIRD).size).toBeGreaterThanOrEqual(60);
  });

  it.each(KINDS)('kind %s: at least 10 answers and 30 occurrences, at least 10 each way', (kind) => {
    const cases = THIRD.filter((c) => c.kind === kind);
    const occurrences = cases.flatMap((c) => c.occurrences);
    expect(cases.length).toBeGreaterThanOrEqual(10);
    expect(occurrences.length).toBeGreaterThanOrEqual(30);
    expect(occurrences.filter((o) => o.means).length).toBeGreaterThanOrEqual(10);
    expect(occurrences.filter((o) => !o.means).length).toBeGreaterThanOrEqual(10);
  });

  it('mixes both senses of the everyday-word names: 30% to 50% of their own occurrences mean the name', () => {
    const own = THIRD.flatMap((c) => c.occurrences.filter((o) => c.everyday.includes(o.name)));
    const share = own.filter((o) => o.means).length / own.length;
    expect(share).toBeGreaterThanOrEqual(0.3);
    expect(share).toBeLessThanOrEqual(0.5);
  });

  it('is all held back', () => {
    expect(THIRD.filter((c) => c.half !== 'held').map((c) => c.id)).toEqual([]);
  });

  it('every offset holds its text, every whole-word occurrence has a label, every label an occurrence', () => {
    expect(THIRD.flatMap(caseProblems)).toEqual([]);
  });

  it('names no everyday-word name of the first or fresh set', () => {
    const earlier = new Set([...CASES, ...FRESH].flatMap((c) => c.everyday.map((name) => foldText(name))));
    expect([...namesOf(THIRD)].filter((name) => earlier.has(foldText(name)))).toEqual([]);
  });

  it('shares no id and no answer with the first or fresh set, nor repeats one of its own', () => {
    const all = [...CASES, ...FRESH, ...THIRD];
    expect(new Set(all.map((c) => c.id)).size).toBe(all.length);
    expect(new Set(all.map((c) => c.answer.toLowerCase().replace(/\s+/g, ' ').trim())).size).toBe(all.length);
  });

  it.each(KINDS)('%s: the JSON file is what its source file builds', (kind) => {
    expect(readFileSync(join(SETS.third.dir, `${kind}.json`), 'utf8')).toBe(jsonOf(buildKind(kind, SETS.third)));
  });
});

describe('names set: the occurrence finder', () => {
  const tracked = [
    { name: 'Monday', entity: 'brand' },
    { name: 'monday.com', entity: 'brand' },
    { name: 'Hermès', entity: 'competitor:1' },
    { name: 'Box', entity: 'competitor:2' },
  ];
  const texts = (text: string): string[] => findOccurrences(text, tracked).map((f) => f.text);

  it.each([
    ['a possessive', "Monday's boards", ['Monday']],
    ['a hyphenated compound', 'Monday-to-Friday', ['Monday']],
    ['markdown and capitals', '**MONDAY** vs monday', ['MONDAY', 'monday']],
    ['accents either way', 'Hermes and Hermès', ['Hermes', 'Hermès']],
    ['a domain as one occurrence, not two', 'see monday.com today', ['monday.com']],
  ])('finds %s', (_label, text, expected) => {
    expect(texts(text)).toEqual(expected);
  });

  it.each([
    ['a plural', 'Mondays are busy'],
    ['a longer word', 'Dropbox and Boxes and inbox'],
    ['a name glued to digits', 'Box2 and 3Monday'],
  ])('finds nothing in %s', (_label, text) => {
    expect(texts(text)).toEqual([]);
  });

  it('refuses a string tracked for two entities, since no label could name one', () => {
    expect(() => findOccurrences('Monday', [...tracked, { name: 'MONDAY', entity: 'competitor:3' }])).toThrow(
      /names both/,
    );
  });
});

describe('names set: the checks fail loudly', () => {
  const source = [
    '=== t-01',
    'prompt: Which tool?',
    'industry: Software',
    'site: Monday | monday.com |',
    'competitor 1: Box | box.com |',
    'everyday: Monday',
    '---',
    'Try ⟦+Monday⟧ on ⟦-Monday⟧ morning; ⟦+Box⟧ works too.',
  ].join('\n');
  const [good] = parseSource('weekday', source);
  if (good === undefined) throw new Error('the fixture case did not parse');

  it('accepts a case whose every occurrence is labelled', () => {
    expect(good.occurrences.map((o) => [o.at, o.text, o.means])).toEqual([
      [4, 'Monday', true],
      [14, 'Monday', false],
      [30, 'Box', true],
    ]);
    expect(caseProblems(good)).toEqual([]);
  });

  it('names an occurrence left without a label', () => {
    const c = { ...good, occurrences: good.occurrences.slice(1) };
    expect(caseProblems(c).join('\n')).toMatch(/"Monday" at 4 has no label/);
  });

  it('names an offset that does not hold its text', () => {
    const c = { ...good, occurrences: good.occurrences.map((o, i) => (i === 2 ? { ...o, at: o.at + 1 } : o)) };
    expect(caseProblems(c).join('\n')).toMatch(/offset 31 does not hold "Box"/);
  });

  it('names a label given to the wrong entity', () => {
    const c = { ...good, occurrences: good.occurrences.map((o, i) => (i === 2 ? { ...o, entity: 'brand' } : o)) };
    expect(caseProblems(c).join('\n')).toMatch(/"Box" at 30 is competitor:1, labelled brand/);
  });

  it('refuses, while building, a source whose answer has an unmarked occurrence', () => {
    expect(() => parseSource('weekday', source.replace('⟦+Box⟧', 'Box'))).toThrow(/"Box" at 30 has no label/);
  });
});
