import { describe, expect, it } from 'vitest';
import {
  analyse,
  bestVerdict,
  compileBrandBook,
  shareOfVoice,
  stability,
  visibility,
  type Verdict,
} from '../../../src/analysis/index.ts';
import { BOOK, facts } from './helpers.ts';

const book = compileBrandBook(BOOK);

describe('verdict', () => {
  it.each([
    ['failed call', { text: 'Acme is great', citations: [{ url: 'https://acme.com' }], failed: true }, 'failed'],
    ['null text', { text: null, citations: [], failed: false }, 'failed'],
    ['empty text', { text: '', citations: [], failed: false }, 'failed'],
    ['blank text', { text: '  \n ', citations: [], failed: false }, 'failed'],
    [
      'own page linked and named',
      { text: 'Acme is great', citations: [{ url: 'https://acme.com' }], failed: false },
      'cited',
    ],
    [
      'own page linked, not named',
      { text: 'Foo is great', citations: [{ url: 'https://docs.acme.com/x' }], failed: false },
      'cited',
    ],
    ['named, not linked', { text: 'Acme is great', citations: [{ url: 'https://foo.io' }], failed: false }, 'named'],
    ['named with a competitor', { text: 'Acme and Foo', citations: [], failed: false }, 'named'],
    ['only a competitor named', { text: 'Foo is great', citations: [], failed: false }, 'lost'],
    [
      'competitor only cited, not named',
      { text: 'Nothing here', citations: [{ url: 'https://foo.io' }], failed: false },
      'missing',
    ],
    ['nobody named', { text: 'Nothing here', citations: [], failed: false }, 'missing'],
    [
      'look-alike link is not cited',
      { text: 'Nothing', citations: [{ url: 'https://notacme.com' }], failed: false },
      'missing',
    ],
  ] as const)('%s -> %s', (_rule, answer, verdict) => {
    expect(analyse({ ...answer, citations: [...answer.citations] }, book).verdict).toBe(verdict);
  });

  it('a failed answer carries no other facts', () => {
    const f = analyse({ text: 'Acme', citations: [{ url: 'https://acme.com' }], failed: true }, book);
    expect(f).toMatchObject({
      mentioned: false,
      ownCited: false,
      brandRank: null,
      brands: [],
      citations: [],
      tone: null,
      quote: null,
    });
  });

  it('mentioned is true for a named answer', () => {
    expect(facts('Acme works.').mentioned).toBe(true);
  });

  it.each([
    [['failed', 'named'], 'named'],
    [['lost', 'missing'], 'lost'],
    [['named', 'cited', 'lost'], 'cited'],
    [['failed'], 'failed'],
    [[], null],
  ] as const)('best verdict of %j is %s', (verdicts, best) => {
    expect(bestVerdict(verdicts as readonly Verdict[])).toBe(best);
  });
});

describe('metrics', () => {
  it.each([
    [0, 0, null],
    [0, 10, 0],
    [5, 10, 50],
    [10, 10, 100],
    [1, 3, 33.3],
    [2, 3, 66.7],
  ])('visibility(%i, %i) = %s', (m, a, v) => {
    expect(visibility(m, a)).toBe(v);
  });

  it.each([
    [0, 0, null],
    [3, 12, 25],
    [12, 12, 100],
    [0, 5, 0],
    [1, 6, 16.7],
  ])('shareOfVoice(%i, %i) = %s', (b, all, v) => {
    expect(shareOfVoice(b, all)).toBe(v);
  });

  it.each([
    ['held: named in every period with data', ['named', null, 'cited', 'named'], 'held'],
    ['not held with one period of data', [null, 'named'], 'volatile'],
    ['lost: named before, not in the latest', ['named', 'named', 'lost'], 'lost'],
    ['lost: latest period with data decides', ['cited', 'missing', null], 'lost'],
    ['volatile: dropped then back', ['named', 'missing', 'named'], 'volatile'],
    ['none: never named', ['missing', 'lost', null], null],
    ['none: no data', [null, null], null],
    ['failed periods carry no data', ['named', 'failed', 'named'], 'held'],
    ['failed latest period does not make it lost', ['named', 'named', 'failed'], 'held'],
  ] as const)('stability %s', (_rule, periods, expected) => {
    expect(stability(periods as readonly (Verdict | null)[])).toBe(expected);
  });
});
