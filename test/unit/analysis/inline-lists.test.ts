import { describe, expect, it } from 'vitest';
import { findListItems } from '../../../src/analysis/lists.ts';
import { facts, named } from './helpers.ts';

/** The text of each item found, trimmed. */
function items(text: string): string[] {
  return findListItems(text).map((i) => text.slice(i.bodyStart, i.end).trim());
}

describe('lists written on one line', () => {
  it.each([
    ['"1. A 2. B"', 'Top options: 1. Foo 2. Acme.', ['Foo', 'Acme.']],
    ['"1) A 2) B"', 'Pick 1) Foo 2) Acme 3) Bar', ['Foo', 'Acme', 'Bar']],
    ['"(1) A (2) B"', '(1) Foo, (2) Acme and (3) Bar are good.', ['Foo,', 'Acme and', 'Bar are good.']],
    ['"a) A b) B"', 'Either a) Foo or b) Acme.', ['Foo or', 'Acme.']],
    ['"(a) A (b) B"', 'Either (a) Foo or (b) Acme.', ['Foo or', 'Acme.']],
    ['capital letters', 'Choose A) Foo B) Acme', ['Foo', 'Acme']],
    ['the last item ends with its sentence', 'Try 1. Foo 2. Acme. Bar is older.', ['Foo', 'Acme.']],
  ])('%s', (_rule, text, expected) => {
    expect(items(text)).toEqual(expected);
  });

  it.each([
    ['a price', 'Acme costs $1.5 a seat and Foo 2. Bar is cheaper.'],
    ['a version', 'Acme v2.1 and Foo v2.2 shipped.'],
    ['one step in prose', 'Step 1) install Foo, then configure Acme.'],
    ['markers out of order', 'See (1) Foo and (3) Acme.'],
    ['a run not starting at 1', 'Choose 2. Foo 3. Acme.'],
    ['styles mixed', 'Choose 1. Foo 2) Acme.'],
    ['letters of two cases', 'Choose a) Foo B) Acme.'],
    ['a decimal after the marker', 'Scores: 1. 5 points 2. 7 points.'],
  ])('not a list: %s', (_rule, text) => {
    expect(items(text)).toEqual([]);
  });

  it.each([
    ['inline numbers rank', 'Top options: 1. Foo 2. Acme.', ['Foo Cloud', 'Acme']],
    [
      'inline numbers rank over an earlier mention',
      'Unlike Bar: (1) Foo, (2) Acme and (3) Notion',
      ['Foo Cloud', 'Acme', 'Notion', 'Bar'],
    ],
    ['inline letters rank', 'Acme aside, a) Foo b) Bar c) Acme', ['Foo Cloud', 'Bar', 'Acme']],
    ['a list line made of an inline list', '1. Foo 2. Acme\n3. Bar\n', ['Foo Cloud', 'Acme', 'Bar']],
    [
      'an inline list inside an item is nested',
      '1. Foo, with (a) Acme (b) Bar\n2. Bar\n',
      ['Foo Cloud', 'Bar', 'Acme'],
    ],
  ])('rank: %s', (_rule, text, expected) => {
    expect(named(text)).toEqual(expected);
  });

  it.each([
    ['beside a tracked brand', 'Top options: 1. Acme 2. Trello 3. Asana.', ['Trello', 'Asana']],
    ['in brackets', '(1) Foo, (2) ClickUp and (3) Asana', ['ClickUp', 'Asana']],
    ['no tracked brand among the items', 'Acme is fine. (1) Trello (2) Asana', []],
  ])('suggestions: %s', (_rule, text, expected) => {
    expect(facts(text).suggestions).toEqual(expected);
  });
});

describe('tables whose first column is the rank', () => {
  it.each([
    ['rows rank by their rank cell', '| Rank | Tool |\n|---|---|\n| 2 | Foo |\n| 1 | Acme |\n', ['Acme', 'Foo Cloud']],
    [
      '"#1" and "1." are ranks',
      '| # | Tool |\n| --- | --- |\n| #2 | Foo |\n| #1. | Acme |\n| #3 | Bar |\n',
      ['Acme', 'Foo Cloud', 'Bar'],
    ],
    ['bold ranks', '| Rank | Tool |\n|:-:|---|\n| **2** | Foo |\n| **1** | Acme |\n', ['Acme', 'Foo Cloud']],
    [
      'a first column that is not all ranks keeps row order',
      '| Rank | Tool |\n|---|---|\n| 2 | Foo |\n| n/a | Acme |\n',
      ['Foo Cloud', 'Acme'],
    ],
    [
      'a table without a rank column keeps row order',
      '| Tool | Price |\n|---|---|\n| Foo | $5 |\n| Acme | $9 |\n',
      ['Foo Cloud', 'Acme'],
    ],
  ])('%s', (_rule, text, expected) => {
    expect(named(text)).toEqual(expected);
  });

  it('the header row is no item, and a ranked row suggests the name after its rank', () => {
    const text = '| Rank | Tool |\n|---|---|\n| 1 | Acme |\n| 2 | Zoho Desk |\n';
    expect(items(text)).toEqual(['1 | Acme |', '2 | Zoho Desk |']);
    expect(facts(text).suggestions).toEqual(['Zoho Desk']);
  });
});
