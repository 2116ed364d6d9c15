import { describe, expect, it } from 'vitest';
import { analyse, compileBrandBook, normaliseUrl } from '../../../src/analysis/index.ts';
import { findInlineItems } from '../../../src/analysis/inline-lists.ts';
import { findListItems } from '../../../src/analysis/lists.ts';
import { findMentions } from '../../../src/analysis/mentions.ts';
import { brandTone, plainForScoring, SCORER_OPTIONS } from '../../../src/analysis/sentiment.ts';
import { findSuggestions } from '../../../src/analysis/suggestions.ts';
import { findUrlSpans } from '../../../src/analysis/urls.ts';
import { createVader } from '../../../src/analysis/vader.ts';

/**
 * Analysis takes time linear in the text, whatever an assistant or an import
 * writes (issue 24). Each case is a text that made one part of src/analysis
 * super-linear, run through that part; `old` is what that part took on it
 * before the fix (CPU time, 6 to 48 s; bench/README.md "hostile text"). The
 * bound is generous: the fixed code takes at most 142 ms on any of them.
 * Time is the process's CPU time, not the wall clock: the machine is shared,
 * and analysis is pure computation, so CPU time is the work it does.
 */

const BOUND_MS = 1000;

function cpuMs(run: () => unknown): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const book = compileBrandBook({
  name: 'Acme',
  brandTerms: ['Acme Corp', 'Acme.io'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Foo Cloud', aliases: ['Foo'], domain: 'foo.io' },
    { id: 2, name: 'Notion', aliases: [], domain: 'notion.so' },
    { id: 3, name: 'Bar Labs', aliases: ['HP'], domain: null },
  ],
});

/** `unit` repeated to about `chars` characters. */
const fill = (unit: string, chars: number): string => unit.repeat(Math.floor(chars / unit.length));
const answer = (text: string) => ({ text, citations: [], failed: false });
/** Mentions found before the clock starts, for the cases about what reads them. */
const withMentions = (text: string) => ({ text, mentions: findMentions(text, book) });
const vader = createVader(SCORER_OPTIONS);

/** Distinct coined names, so every list item heads a new suggestion. */
function coined(i: number): string {
  let s = '';
  for (let n = i + 26 * 26; n > 0; n = Math.floor(n / 26)) s = String.fromCharCode(97 + (n % 26)) + s;
  return `K${s}`;
}

describe('hostile answers: the review’s input', () => {
  // "Acme is good" then 200 KB of white space in one sentence: 29 s and more in analyse() (old: 34-48 s of CPU each).
  it.each([
    ['spaces', ' '],
    ['tabs', '\t'],
    ['no-break spaces', '\u00a0'],
    ['ideographic spaces', '\u3000'],
  ])('"Acme is good" and 200 KB of %s is analysed in under a second', (_name, space) => {
    const text = `Acme is good${space.repeat(200 * 1024)}x`;
    let facts = analyse(answer(text), book);
    expect(cpuMs(() => (facts = analyse(answer(text), book)))).toBeLessThan(BOUND_MS);
    expect(facts).toMatchObject({ mentioned: true, tone: 'positive', analysis: { truncated: true } });
  });

  // The same under the analysis cap, so it is the fix and not the cap that makes it fast (old: 7.4-11 s).
  it.each([
    ['spaces', ' '],
    ['tabs', '\t'],
    ['no-break spaces', '\u00a0'],
    ['ideographic spaces', '\u3000'],
  ])('"Acme is good" and 99,000 %s, all of it read, in under a second', (_name, space) => {
    const text = `Acme is good${space.repeat(99_000)}x`;
    let facts = analyse(answer(text), book);
    expect(cpuMs(() => (facts = analyse(answer(text), book)))).toBeLessThan(BOUND_MS);
    expect(facts).toMatchObject({ mentioned: true, tone: 'positive', analysis: { truncated: false } });
  });
});

describe('hostile answers: each part of the analysis is linear', () => {
  const cases: [string, () => unknown][] = [
    // sentiment.ts plainForScoring, the markdown-link pass (old: 12 s each)
    ['a sentence of 200,000 "["', () => plainForScoring(`Acme is good ${'['.repeat(200_000)}`, [])],
    [
      'a sentence of 100,000 "[a](" that never close',
      () => plainForScoring(`Acme is good ${fill('[a](', 400_000)}`, []),
    ],
    // urls.ts, the punctuation after a URL (old: 10 s)
    ['a URL followed by 150,000 dots', () => findUrlSpans(`see https://x.io/${'.'.repeat(150_000)}x`)],
    // lists.ts RANK_CELL (old: 8 s)
    ['a table row of "|" and 150,000 spaces', () => findListItems(`|${' '.repeat(150_000)}x|`)],
    // inline-lists.ts, each run's sentence end and each marker's line (old: 21 s and 9 s)
    ['80,000 lines "1) a.a 2) b.b" with no sentence end', () => findInlineItems(fill('1) a.a 2) b.b\n', 800_000))],
    ['80,000 markers on one line', () => findInlineItems(fill('1) a 2) a ', 800_000))],
    // mentions.ts nameFits, the token around a name (old: 20-21 s)
    ['a token "Acme-Acme-..." of 99,000 characters', () => findMentions(fill('Acme-', 99_000), book)],
    ['a token "Acme.Acme...." of 99,000 characters', () => findMentions(fill('Acme.', 99_000), book)],
    // casing.ts, the sentence around a name in capitals (old: 17 s)
    ['one sentence of 14,000 "NOTION"', () => findMentions(fill('NOTION ', 99_000), book)],
    // mentions.ts marked, the line start and list head before a name (old: 8 s and 6 s)
    ['one line of 87,500 "Notion." sentence starts', () => findMentions(`x ${fill('Notion. ', 700_000)}`, book)],
    [
      '"Notion." sentence starts after an indent of 200,000 spaces',
      () => findMentions(`${' '.repeat(200_000)}${fill('Notion. ', 200_000)}`, book),
    ],
    // urls.ts spanAt, the URL around each name (old: 19 s)
    ['80,000 URLs each followed by a name', () => findMentions(fill('www.a Foo ', 800_000), book)],
    // sentiment.ts brandTone: the names in each sentence, the mentions in each clause (old: 10 s, 12 s, 14 s)
    ...(() => {
      const sentences = withMentions(`${fill('Foo ', 300_000)}.\n${fill('Acme. ', 300_000)}`);
      const contrasts = withMentions(`${fill('Foo ', 300_000)}.\n${fill('Acme, but Foo. ', 300_000)}`);
      const clauses = withMentions(`Acme; ${fill('Foo; ', 400_000)}`);
      return [
        [
          '50,000 sentences naming the brand after 75,000 other names',
          () => brandTone(sentences.text, sentences.mentions, 0),
        ],
        [
          '20,000 contrasts naming the brand after 75,000 other names',
          () => brandTone(contrasts.text, contrasts.mentions, 0),
        ],
        ['one sentence of 80,000 clauses', () => brandTone(clauses.text, clauses.mentions, 0)],
      ] as [string, () => unknown][];
    })(),
    // vader.ts: punctuation at a token's ends, phrases, exclamations (old: 15 s, 7 s, 20 s)
    ['a token of 200,000 "!" between letters', () => vader.score(`good x${'!'.repeat(200_000)}x!`)],
    ['38,000 phrases in one sentence', () => vader.score(fill('steep learning curve ', 800_000))],
    ['160,000 plain-fact words in one sentence', () => vader.score(`Brand is ${fill('free ', 800_000)}`)],
    // suggestions.ts CHAIN_RE and the names kept (old: 17 s, 20 s, 20 s, 7 s)
    ...(() => {
      const run = withMentions(`Acme, Foo. ${'A'.repeat(200_000)} x`);
      const alternating = withMentions(`Acme, Foo. ${fill('Aa', 300_000)} x`);
      const dotted = withMentions(`Acme, Foo. ${fill('A.', 99_000)}x`);
      let list = '- Acme\n';
      for (let i = 0; list.length < 250_000; i++) list += `- ${coined(i)}\n`;
      const heads = { ...withMentions(list), items: findListItems(list) };
      return [
        ['a run of 200,000 capitals', () => findSuggestions(run.text, run.mentions, [], () => false)],
        [
          'a run of 300,000 alternating capitals',
          () => findSuggestions(alternating.text, alternating.mentions, [], () => false),
        ],
        [
          'a name "A.A.A..." of 99,000 characters',
          () => findSuggestions(dotted.text, dotted.mentions, [], () => false),
        ],
        [
          'a list of 30,000 names beside the brand',
          () => findSuggestions(heads.text, heads.mentions, heads.items, () => false),
        ],
      ] as [string, () => unknown][];
    })(),
    // citations.ts, the slashes ending a path (old: 12 s)
    ['a cited URL ending in 200,000 "/"', () => normaliseUrl(`https://acme.com/${'/'.repeat(200_000)}x/`)],
  ];

  it.each(cases)('%s, in under a second', (_name, run) => {
    expect(cpuMs(run)).toBeLessThan(BOUND_MS);
  });
});
