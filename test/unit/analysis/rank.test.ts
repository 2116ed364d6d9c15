import { describe, expect, it } from 'vitest';
import { facts, named } from './helpers.ts';

describe('rank', () => {
  it.each([
    ['first mention order in prose', 'Foo is good, Acme is better and Bar is fine.', ['Foo Cloud', 'Acme', 'Bar']],
    ['repeat mentions do not move a brand', 'Acme, then Foo, then Acme again.', ['Acme', 'Foo Cloud']],
    [
      'numbered list order wins over an earlier mention',
      'Unlike Bar, these are good:\n1. Foo\n2. Acme\n',
      ['Foo Cloud', 'Acme', 'Bar'],
    ],
    [
      'bulleted list order',
      'Options:\n- **Acme**: simple\n- **Foo**: fast\n- **Bar**: cheap\n',
      ['Acme', 'Foo Cloud', 'Bar'],
    ],
    ['list item belongs to its first brand', '1. Foo, better than Acme\n2. Bar\n', ['Foo Cloud', 'Bar', 'Acme']],
    ['numbered list wins over bullets', '- Bar\n- Foo\n\n1. Acme\n2. Foo\n', ['Acme', 'Foo Cloud', 'Bar']],
    ['sub-bullets do not rank', '1. Foo\n   - works with Acme\n2. Bar\n', ['Foo Cloud', 'Bar', 'Acme']],
    ['heading numbers count as a list', '### 1. Bar\ntext\n### 2. Acme\ntext\n', ['Bar', 'Acme']],
    [
      'table rows rank when there is no list',
      '| Tool | Price |\n|---|---|\n| Foo | $5 |\n| Acme | $9 |\n',
      ['Foo Cloud', 'Acme'],
    ],
    [
      'a list with one brand does not override prose order',
      'Acme and Foo compared.\n1. Foo\n2. Pricing notes\n',
      ['Acme', 'Foo Cloud'],
    ],
    ['list with numbers in any order keeps document order', '2) Bar\n1) Acme\n', ['Bar', 'Acme']],
  ])('%s', (_rule, text, expected) => {
    expect(named(text)).toEqual(expected);
  });

  it.each([
    ['first in prose', 'Acme leads; Foo follows.', 1],
    ['second in prose', 'Foo leads; Acme follows.', 2],
    ['third in a list', '1. Foo\n2. Bar\n3. Acme\n', 3],
    ['first in a list after a competitor intro', 'Foo is known, but:\n1. Acme\n2. Foo\n', 1],
    ['only brand named', 'Acme alone.', 1],
  ])('brandRank: %s', (_rule, text, rank) => {
    expect(facts(text).brandRank).toBe(rank);
  });

  it('brandRank is null when the brand is not named', () => {
    expect(facts('1. Foo\n2. Bar\n').brandRank).toBeNull();
  });

  it('lists each brand with kind and competitor id in rank order', () => {
    expect(
      facts('1. Foo\n2. Acme\n').brands.map(({ name, kind, competitorId }) => ({ name, kind, competitorId })),
    ).toEqual([
      { name: 'Foo Cloud', kind: 'competitor', competitorId: 2 },
      { name: 'Acme', kind: 'brand', competitorId: null },
    ]);
  });
});
