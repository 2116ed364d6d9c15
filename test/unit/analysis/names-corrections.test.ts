import { describe, expect, it } from 'vitest';
import {
  ambiguityOf,
  analyse,
  compileBrandBook,
  createAnalysisPool,
  QUOTE_MAX,
  quoteAround,
  type BrandBookInput,
  type Correction,
} from '../../../src/analysis/index.ts';
import { BOOK } from './helpers.ts';

/**
 * The hooks around the reading (docs/analysis.md "Names and corrections"):
 * exclusion phrases, readers' corrections, the per-name readings stored
 * with facts, and the one ambiguity rule the API explains.
 */

/**
 * Names with no other sense, so what is refused here is refused by the
 * exclusion phrases alone (the reading of everyday words is reading.ts's,
 * tested on its own); each case holds with the phrases and fails without.
 */
const GLOBEX: BrandBookInput = {
  name: 'Globex',
  brandTerms: ['Globex Cloud'],
  domain: 'globex.com',
  excludePhrases: ['Globex Zentrum', 'Globex Arena'],
  competitors: [
    { id: 7, name: 'Zentrum Labs', aliases: ['Zentrum'], domain: null },
    { id: 8, name: 'Initech', aliases: [], domain: 'initech.com', excludePhrases: ['Initech parking lot'] },
  ],
};
const WITHOUT: BrandBookInput = {
  ...GLOBEX,
  excludePhrases: [],
  competitors: GLOBEX.competitors.map((c) => ({ ...c, excludePhrases: [] })),
};

const read = (text: string, book: BrandBookInput = GLOBEX, corrections: Correction[] = []) =>
  analyse({ text, citations: [], failed: false }, compileBrandBook(book), corrections);
const reading = (text: string, name: string, book: BrandBookInput = GLOBEX, corrections: Correction[] = []) =>
  read(text, book, corrections).names.find((n) => n.name === name);

describe('exclusion phrases', () => {
  it('refuse the brand inside its own phrase, and only there', () => {
    const text = 'The Globex Arena hosts concerts.';
    expect(read(text, WITHOUT).mentioned).toBe(true);
    expect(read(text).mentioned).toBe(false);
    expect(read(text).verdict).toBe('missing');
    expect(read('We order from Globex, it ships in a day.').mentioned).toBe(true);
    const both = read('We order from Globex. The Globex Arena hosts concerts.');
    expect(both.brands).toMatchObject([{ name: 'Globex', count: 1, position: 14 }]);
    expect(read('We order from Globex. The Globex Arena hosts concerts.', WITHOUT).brands[0]?.count).toBe(2);
  });

  it('are matched folded and as whole words: other case and accents count, a longer word does not', () => {
    expect(read('THE GLOBEX ARÉNA is vast.', WITHOUT).mentioned).toBe(true);
    expect(read('THE GLOBEX ARÉNA is vast.').mentioned).toBe(false);
    expect(read('the globex arena is vast, and Globex sells tickets.').brands[0]?.count).toBe(1);
    // "Arenas" is not the phrase "Arena": the name stands.
    expect(read('Tours of Globex Arenas are popular.').mentioned).toBe(true);
  });

  it('belong to their entity: another entity named inside the phrase still counts', () => {
    const f = read('Guides to the Globex Zentrum by Zentrum Labs are popular.');
    expect(read('Guides to the Globex Zentrum by Zentrum Labs are popular.', WITHOUT).mentioned).toBe(true);
    expect(f.mentioned).toBe(false);
    expect(f.brands.map((b) => b.name)).toEqual(['Zentrum Labs']);
    expect(f.competitorsNamed).toEqual([7]);
    expect(f.verdict).toBe('lost');
  });

  it('apply to competitors too', () => {
    expect(read('We met in the Initech parking lot.', WITHOUT).competitorsNamed).toEqual([8]);
    expect(read('We met in the Initech parking lot.').competitorsNamed).toEqual([]);
    expect(read('Initech sells staplers.').competitorsNamed).toEqual([8]);
  });

  it('change the book and its key; no phrases keep the key a book had without the field', () => {
    const { excludePhrases: _omit, ...without } = GLOBEX;
    void _omit;
    const plain = compileBrandBook({
      ...without,
      competitors: without.competitors.map(({ excludePhrases: _x, ...c }) => c),
    });
    const empty = compileBrandBook(WITHOUT);
    expect(empty.key).toBe(plain.key);
    expect(compileBrandBook(GLOBEX).key).not.toBe(plain.key);
    expect(compileBrandBook({ ...GLOBEX, excludePhrases: ['Globex Arena'] }).key).not.toBe(
      compileBrandBook(GLOBEX).key,
    );
    expect(plain.exclusions).toBe(false);
    expect(compileBrandBook(GLOBEX).exclusions).toBe(true);
  });

  it('are never tracked names (suggestions) and a phrase that is also a name keeps the name', () => {
    const book = compileBrandBook(GLOBEX);
    expect(book.tracked.has('globex arena')).toBe(false);
    expect(book.tracked.has('globex cloud')).toBe(true);
    // The brand excludes a competitor's whole name: the competitor counts there, the brand inside it does not.
    const shared: BrandBookInput = {
      ...GLOBEX,
      excludePhrases: ['Initech Globex'],
      competitors: [{ id: 9, name: 'Initech Globex', aliases: [], domain: null }],
    };
    const f = read('Initech Globex is a mall.', shared);
    expect(f.brands.map((b) => b.name)).toEqual(['Initech Globex']);
    expect(f.mentioned).toBe(false);
  });
});

describe('corrections', () => {
  it('mentioned: false refuses every occurrence of the name in the answer, and the verdict follows', () => {
    const text = '1. **Acme** is reliable.\n2. **Foo Cloud** is cheap. Acme also has an API.';
    expect(read(text, BOOK).verdict).toBe('named');
    const f = read(text, BOOK, [{ name: 'acme', mentioned: false }]);
    expect(f.mentioned).toBe(false);
    expect(f.brandRank).toBeNull();
    expect(f.verdict).toBe('lost');
    expect(f.tone).toBeNull();
    expect(f.names.find((n) => n.name === 'Acme')).toMatchObject({ counted: 0, refused: 2 });
  });

  it('mentioned: true counts occurrences the reading refused, and rank follows', () => {
    const text = 'Most teams write their notion of done first, then pick Foo Cloud.';
    expect(read(text, BOOK).competitorsNamed).toEqual([2]);
    const f = read(text, BOOK, [{ name: ' NOTION ', mentioned: true }]);
    expect(f.competitorsNamed).toEqual([1, 2]);
    expect(f.names.find((n) => n.name === 'Notion')).toMatchObject({ entity: 1, counted: 1, refused: 0 });
    const brand = read('Acme comes after the notion of a plan.', BOOK, [{ name: 'Notion', mentioned: true }]);
    expect(brand.brands.map((b) => b.name)).toEqual(['Acme', 'Notion']);
  });

  it('do not count a name inside an exclusion phrase, a URL or a longer word', () => {
    expect(read('The Globex Arena is vast.', GLOBEX, [{ name: 'Globex', mentioned: true }]).mentioned).toBe(false);
    expect(
      read('See https://example.org/notion-review for more.', BOOK, [{ name: 'Notion', mentioned: true }])
        .competitorsNamed,
    ).toEqual([]);
    expect(read('Notional amounts are large.', BOOK, [{ name: 'Notion', mentioned: true }]).competitorsNamed).toEqual(
      [],
    );
  });

  it('leave the domain written out counting, and a name that does not occur changes nothing', () => {
    expect(read('Visit acme.com today.', BOOK, [{ name: 'Acme', mentioned: false }]).mentioned).toBe(true);
    expect(read('Foo Cloud is fine.', BOOK, [{ name: 'Acme', mentioned: true }])).toEqual(
      read('Foo Cloud is fine.', BOOK),
    );
  });

  it('refuse before they accept: "not Foo Cloud" with "Foo" counts the Foo inside it', () => {
    const f = read('Foo Cloud is fine.', BOOK, [
      { name: 'Foo Cloud', mentioned: false },
      { name: 'Foo', mentioned: true },
    ]);
    expect(f.brands).toMatchObject([{ name: 'Foo Cloud', count: 1, position: 0 }]);
    expect(f.names.map((n) => [n.name, n.counted, n.refused])).toEqual(
      expect.arrayContaining([
        ['Foo', 1, 0],
        ['Foo Cloud', 0, 1],
      ]),
    );
  });

  it('cross to the analysis threads as plain data', async () => {
    const book = compileBrandBook(BOOK);
    const answers = [
      { text: 'Acme is good.', citations: [], failed: false },
      { text: 'We had a notion about Foo Cloud.', citations: [], failed: false },
    ];
    const corrections = [[{ name: 'Acme', mentioned: false }], [{ name: 'Notion', mentioned: true }]];
    const pool = createAnalysisPool();
    const facts = await pool.analyse(book, answers, { timeoutMs: 30_000 }, corrections).finally(() => pool.close());
    expect(facts).toEqual(answers.map((a, i) => analyse(a, book, corrections[i])));
    expect(facts.map((f) => f.verdict)).toEqual(['missing', 'lost']);
    expect(facts[1]?.competitorsNamed).toEqual([1, 2]);
  });
});

describe('name readings', () => {
  it('count each whole-word occurrence as counted or refused, with where the first of each is', () => {
    const text = 'We order from Globex daily. The Globex Arena floods. Prices on Globex drop.';
    const r = reading(text, 'Globex');
    expect(r).toEqual({
      name: 'Globex',
      entity: 'brand',
      counted: 2,
      refused: 1,
      countedAt: [14, 20],
      refusedAt: [32, 38],
    });
    expect(quoteAround(text, 14, 20)).toBe('We order from Globex daily.');
    expect(quoteAround(text, 32, 38)).toBe('The Globex Arena floods.');
    expect(reading('Initech sells staplers.', 'Initech')).toMatchObject({ entity: 8, counted: 1, refused: 0 });
    // The first occurrence by position, though hits arrive in end order ("Foo" inside "Foo Cloud" ends before it).
    expect(reading('Foo Cloud is fine, Foo too.', 'Foo Cloud', BOOK)).toMatchObject({ counted: 1, countedAt: [0, 9] });
  });

  it('leave out names that do not occur, occur only inside longer words, URLs or a longer counted name', () => {
    const f = read('Globexian plants. See https://example.org/globex. Globex Cloud is a service.');
    expect(f.names.map((n) => n.name)).toEqual(['Globex Cloud']);
    expect(read('Nothing here.').names).toEqual([]);
    expect(analyse({ text: null, citations: [], failed: true }, compileBrandBook(GLOBEX)).names).toEqual([]);
  });

  it('read an everyday-word name the reading refused as refused', () => {
    expect(reading('Most teams write their notion of done first.', 'Notion', BOOK)).toEqual({
      name: 'Notion',
      entity: 1,
      counted: 0,
      refused: 1,
      refusedAt: [23, 29],
    });
  });
});

describe('quoteAround', () => {
  it('quotes the sentence around a place, on one line', () => {
    expect(quoteAround('First one.\nThen   Amazon\tships. Last.', 18, 24)).toBe('Then Amazon ships.');
  });

  it('cuts a long sentence to about 200 characters around the name, at words', () => {
    const long = `${'word '.repeat(80)}then Amazon ships ${'again '.repeat(60)}.`;
    const at = long.indexOf('Amazon');
    const q = quoteAround(long, at, at + 6);
    expect(q.length).toBeLessThanOrEqual(QUOTE_MAX + 2);
    expect(q).toMatch(/^…word .*then Amazon ships again .*again…$/);
  });

  it('gives the same quote from a prefix of the text that runs twice QUOTE_MAX past the name (what the names list reads)', () => {
    const long = `Intro. ${'word '.repeat(30)}then Amazon ships ${'again '.repeat(300)}.`;
    const at = long.indexOf('Amazon');
    expect(quoteAround(long.slice(0, at + 6 + 2 * QUOTE_MAX), at, at + 6)).toBe(quoteAround(long, at, at + 6));
    const short = 'We order from Amazon daily. More text follows here.';
    expect(quoteAround(short.slice(0, 14 + 6 + 2 * QUOTE_MAX), 14, 20)).toBe('We order from Amazon daily.');
  });
});

describe('ambiguityOf', () => {
  it.each([
    ['HP', true, 'short', 'one or two letters, which stand for many other things'],
    ['X', true, 'short', 'one or two letters, which stand for many other things'],
    ['3M', true, 'short', 'one or two letters, which stand for many other things'],
    ['Notion', true, 'word', 'also an everyday English word'],
    ['  notion ', true, 'word', 'also an everyday English word'],
    ['Best Buy', true, 'word', 'also an everyday English word'],
    ['Monday', true, 'weekday', 'also a day of the week'],
    ['Amazon', true, 'place', 'also the name of a place'],
    ['Acme', false, null, null],
    ['Foo Cloud', false, null, null],
    ['Best Buy Online Store', false, null, null],
  ] as const)('%s', (name, ambiguous, sense, reason) => {
    expect(ambiguityOf(name)).toEqual({ ambiguous, sense, reason });
  });

  it('is the rule the brand book reads context for', () => {
    const book = compileBrandBook(BOOK);
    const cased = (name: string) => book.info[book.patterns.indexOf(name.toLowerCase())]?.casings !== null;
    for (const name of ['Notion', 'HP', 'Best Buy', 'Foo Cloud', 'Acme'])
      expect(cased(name), name).toBe(ambiguityOf(name).ambiguous);
  });
});
