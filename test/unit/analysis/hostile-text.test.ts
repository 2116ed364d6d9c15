import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyse, ANALYSIS_MAX_CHARS, compileBrandBook, type AnswerInput } from '../../../src/analysis/index.ts';

/**
 * Whatever text an assistant returns or an import brings, one analysis
 * finishes within a fixed time (issue 24). Texts are generated from what
 * analysis reads specially (white space of every kind, markdown link, list
 * and table marks, sentence ends, contrasts, URLs, digits, brand names in
 * every casing) and from random UTF-16 units, lone surrogates included, each
 * piece repeated up to 60,000 times, up to 200 KB in all; citations likewise.
 * test/unit/analysis/linear-time.test.ts holds one case per part that was
 * super-linear. Time is CPU time: the machine is shared, and analysis is
 * pure computation.
 */

const BOUND_MS = 1000;
const MAX_CHARS = 200 * 1024;

const book = compileBrandBook({
  name: 'Acme',
  brandTerms: ['Acme Corp', 'Acme.io', 'Café Rouge'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Foo Cloud', aliases: ['Foo', 'FooCloud'], domain: 'foo.io' },
    { id: 2, name: 'Notion', aliases: [], domain: 'notion.so' },
    { id: 3, name: 'Bar Labs', aliases: ['HP', 'Bar'], domain: null },
    { id: 4, name: 'Best Buy', aliases: [], domain: 'bestbuy.com' },
    { id: 5, name: 'Co-op', aliases: [], domain: 'coop.example.com' },
  ],
});

/** What analysis reads specially, by kind. */
const WHITE_SPACE = [' ', '  ', '\t', '\n', '\r\n', '\n\n', '\u00a0', '\u2009', '\u3000', '\u2028', '\ufeff', '\v'];
const MARKDOWN = [
  '[',
  ']',
  '(',
  ')',
  '](',
  '[a](',
  '[Acme](https://acme.com)',
  '*',
  '**',
  '_',
  '__',
  '`',
  '```',
  '#',
  '### ',
  '>',
  '|',
  '| ',
  '|---|',
  '| 1 |',
  '| **1** |',
];
const LISTS = [
  '- ',
  '* ',
  '+ ',
  '• ',
  '1. ',
  '2. ',
  '1) ',
  '2) ',
  '(1) ',
  '(2) ',
  'a) ',
  'b) ',
  '(a) ',
  '(b) ',
  '0',
  '1',
  '12',
  '123',
  '1234',
  '1st',
  '#1',
  '$1.5',
  'v2.1',
];
const PUNCTUATION = [
  '.',
  '. ',
  '..',
  '...',
  ',',
  ', ',
  ';',
  '; ',
  ':',
  ': ',
  '!',
  '! ',
  '?',
  '/',
  '-',
  '--',
  "'",
  '’',
  '"',
  '“',
  '…',
  '—',
  '–',
  '&',
  '@',
  '+',
  '=',
];
const WORDS = [
  ' but ',
  ', but ',
  '; however ',
  ', and ',
  ' whereas ',
  'Although ',
  ' and ',
  ' or ',
  ' vs. ',
  ' versus ',
  'not ',
  "n't ",
  'very ',
  'good ',
];
const MORE_WORDS = [
  'great! ',
  'free ',
  'too ',
  'like ',
  'lacks ',
  'prevents fraud ',
  'steep learning curve ',
  'easy to use ',
  'e.g. ',
  'Inc. ',
  'J. ',
  'The ',
];
const URLS = [
  'https://',
  'http://',
  'www.',
  '://',
  'acme.com',
  'https://acme.com/',
  'https://www.acme.com/x?utm_source=y#z',
  'sales@acme.com',
  'acme.com.evil.io',
];
const NAMES = [
  'Acme',
  'ACME',
  'acme',
  'Acme.',
  'Acme-',
  "Acme's",
  'Acme Corp',
  'AcmeCloud',
  'Acme.io',
  'Café Rouge',
  'Foo',
  'Foo Cloud',
  'FOO',
  'foo.io',
];
const MORE_NAMES = [
  'Notion',
  'NOTION',
  'notion',
  'Bar Labs',
  'BAR LABS',
  'HP',
  'hp',
  'Best Buy',
  'Co-op',
  'A',
  'Aa',
  'A.',
  'A+',
  'Kx',
  'Zq Labs',
];
const UNICODE = [
  'é',
  'É',
  '\u0301',
  'ß',
  'ı',
  '😀',
  '\ud83d',
  '\ude00',
  '\u0000',
  '\u200b',
  'Ωmega',
  'Д',
  '?',
  '#',
  '%',
  'https://evil.io/acme.com',
];
const PIECES = [
  ...WHITE_SPACE,
  ...MARKDOWN,
  ...LISTS,
  ...PUNCTUATION,
  ...WORDS,
  ...MORE_WORDS,
  ...URLS,
  ...NAMES,
  ...MORE_NAMES,
  ...UNICODE,
];

/** Any UTF-16 unit, lone surrogates included. */
const anyUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));
const piece = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: fc.string({ unit: anyUnit, minLength: 1, maxLength: 12 }) },
);
/** Mostly short runs, some of tens of thousands: long runs are where super-linear code shows. */
const times = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 60_000 }) },
);
const runs = (maxLength: number, max: number) =>
  fc.array(fc.tuple(piece, times), { minLength: 1, maxLength, size: 'max' }).map((parts) => {
    let text = '';
    for (const [p, n] of parts) {
      text += p.repeat(Math.min(n, Math.ceil((max - text.length) / p.length)));
      if (text.length >= max) break;
    }
    return text.slice(0, max);
  });

const citation = fc.record({
  url: fc.oneof(fc.constantFrom('https://acme.com/pricing', 'https://foo.io', 'notaurl', ''), runs(6, 20_000)),
  title: fc.option(runs(3, 200)),
});
const hostileAnswer: fc.Arbitrary<AnswerInput> = fc.record({
  text: runs(16, MAX_CHARS),
  citations: fc.array(citation, { maxLength: 4 }),
  failed: fc.constant(false),
});

function cpuMs(run: () => unknown): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe('analysis of hostile text', () => {
  it(`finishes each generated answer of up to 200 KB within ${BOUND_MS} ms of CPU`, () => {
    // The security review's input first: "Acme is good", 200 KB of spaces, then more text.
    const review: AnswerInput = { text: `Acme is good${' '.repeat(MAX_CHARS - 20)}x`, citations: [], failed: false };
    fc.assert(
      fc.property(hostileAnswer, (answer) => {
        let facts = analyse(answer, book);
        const ms = cpuMs(() => (facts = analyse(answer, book)));
        expect(ms, `${Math.round(ms)} ms for ${answer.text?.length} characters`).toBeLessThan(BOUND_MS);
        expect(facts.analysis.readChars).toBeLessThanOrEqual(ANALYSIS_MAX_CHARS);
        for (const b of facts.brands) expect(b.position).toBeLessThan(facts.analysis.readChars);
      }),
      { numRuns: 200, examples: [[review]] },
    );
  }, 60_000);
});
