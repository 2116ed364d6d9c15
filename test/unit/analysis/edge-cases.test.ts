import { describe, expect, it } from 'vitest';
import { normaliseUrl } from '../../../src/analysis/index.ts';
import { facts, named } from './helpers.ts';

/**
 * Edges of the paths the benchmark work made faster (reused scan buffer,
 * prefilters, in-place list matching, hand-cut query pairs). Every expected
 * value here is what the engine gave before that work.
 */
describe('mentions: offsets whatever the text holds', () => {
  it('finds a name past 32,768 characters, with its offset', () => {
    const text = `${'x '.repeat(20_000)}Acme is great.`;
    expect(facts(text).brandPosition).toBe(40_000);
  });

  it('counts astral characters and lone surrogates as the UTF-16 units they are', () => {
    expect(facts('😀 \uD800 Acme here').brandPosition).toBe(5);
  });

  it('does not carry names over from the previous, longer answer', () => {
    facts('xxxxxxxxxx Acme');
    expect(facts('xxxxxxxxxx').brands).toEqual([]);
  });
});

describe('tone: the quote is plain text', () => {
  it.each([
    ['non-breaking space, tab and double space collapse to one space', '**Acme**\u00a0is  \t great.', 'Acme is great.'],
    ['an em space collapses too', 'Acme is\u2003great,  really.', 'Acme is great, really.'],
  ])('%s', (_rule, text, quote) => {
    expect(facts(text).quote).toBe(quote);
  });
});

describe('tone: VADER rules on brand sentences', () => {
  it.each([
    ['negated negative with exclamations', 'Acme is not bad!!', 0.5321],
    ['capitals for emphasis, weighed after "but"', 'ACME is GREAT but slow', -0.0086],
    ['idiom', 'Acme is the bomb', 0.6124],
    ['"kind of" dampens', 'Acme: kind of good', 0.3832],
    ['"at least" does not negate', 'Acme is at least ok', 0.296],
    ['"no" negates the next word', 'Acme has no bugs', -0.296],
  ])('%s', (_rule, text, score) => {
    expect(facts(text).toneScore).toBe(score);
  });
});

describe('suggestions: every chain separator', () => {
  it.each([
    ['"vs."', 'Acme vs. Trello.', ['Trello']],
    ['"versus"', 'Acme versus Trello.', ['Trello']],
    ['a slash', 'Acme / Trello.', ['Trello']],
    ['a comma and "and"', 'Acme, and Trello.', ['Trello']],
    ['a comma and a line break', 'Acme,\nTrello.', ['Trello']],
    ['"and" between tabs', 'Acme and\tTrello.', ['Trello']],
    ['"or" before a two-word name', 'Acme or Zoho Projects.', ['Zoho Projects']],
    ['a name starting with a digit', 'Acme, 1Password.', ['1Password']],
    ['no capital after the separator, no chain', 'Acme and trello.', []],
  ])('%s', (_rule, text, expected) => {
    expect(facts(text).suggestions).toEqual(expected);
  });
});

describe('citations: query and path edges', () => {
  it.each([
    [
      'empty pairs go, a pair without a name stays, tracking names in any case go',
      'https://x.com/a?&&b=1&=2&UTM_Source=z',
      'https://x.com/a?=2&b=1',
    ],
    ['a tracking name without a value goes', 'https://x.com/a?ref&Ref=1&id', 'https://x.com/a?id'],
    ['an empty query goes', 'https://x.com/?', 'https://x.com'],
    ['every trailing slash goes', 'https://x.com/a///', 'https://x.com/a'],
    ['an upper-case scheme is read', 'HTTPS://X.com/a?b=1#f', 'https://x.com/a?b=1'],
    ['a bare host with tracking', 'x.com/a?utm_source=1', 'https://x.com/a'],
  ])('%s', (_rule, url, expected) => {
    expect(normaliseUrl(url)?.url).toBe(expected);
  });
});

describe('rank: list markers', () => {
  it.each([
    [
      'a table with an aligned separator row',
      '| Tool | Price |\n| --- | :-: |\n| Foo | $5 |\n| Acme | $9 |\n',
      ['Foo Cloud', 'Acme'],
    ],
    ['numbered items followed by a tab', '1.\tFoo – x\n2.\tAcme – y\n', ['Foo Cloud', 'Acme']],
    ['numbered headings', '### 1. Foo\n### 2. Acme\n', ['Foo Cloud', 'Acme']],
    ['tab-indented bullets are nested', '\t- Foo\n\t- Acme\n- Bar\n- Acme\n', ['Bar', 'Acme', 'Foo Cloud']],
  ])('%s', (_rule, text, expected) => {
    expect(named(text)).toEqual(expected);
  });
});
