import { describe, expect, it } from 'vitest';
import { facts, named } from './helpers.ts';

/** A book whose brand terms are everyday words: the everyday-word rule of docs/analysis.md applies to them. */
const BOOK = {
  name: 'Zed',
  brandTerms: ['Bar Labs', 'Notion', 'Best Buy', 'HP', 'Go'],
  domain: 'zed.com',
  competitors: [{ id: 1, name: 'Square', aliases: [], domain: null }],
};

const verdict = (text: string): string => facts(text, [], BOOK).verdict;

describe('everyday-word names at the start of a sentence', () => {
  it.each([
    ['a later capital the book gives shows the name', 'Bar Labs builds dependable tools.'],
    ['the same after a full stop', 'We compared tools. Bar Labs came first.'],
    ['the same at the head of a line', 'Summary:\nBar Labs ships often.'],
    ['a two-word name like Best Buy', 'Best Buy opened a store.'],
    ['a capital past the first letter of a short name', 'HP makes printers.'],
    ['the whole name in capitals, in mixed-case text', 'BAR LABS shipped a new release.'],
    ['one word in capitals, in mixed-case text', 'We moved everything to NOTION last year.'],
    ['marked as a name still counts', '**Notion** is a workspace.'],
    ['named elsewhere still counts', 'Notion is popular. Many teams use Notion daily.'],
  ])('counted: %s', (_rule, text) => {
    expect(verdict(text)).toBe('named');
  });

  it.each([
    ['one word whose only capital the sentence explains', 'Notion of speed matters.'],
    ['the later word not written as the book writes it', 'Bar labs are a kind of workshop.'],
    ['lower case', 'best buy of the year'],
    ['capitals in a sentence written all in capitals, read by its words', 'THE BAR LABS IN TOWN ARE CLOSED.'],
    ['a one- or two-letter name in capitals keeps its exact casing', 'Ready, set, GO!'],
    ['a one-word name at the start of a sentence after another', 'It works. Square corners look sharp.'],
  ])('refused: %s', (_rule, text) => {
    expect(named(text, BOOK)).toEqual([]);
  });

  it('holds for competitors: "Square Labs" at a sentence start is named, "Square" alone names nothing', () => {
    const book = { ...BOOK, competitors: [{ id: 1, name: 'Square Labs', aliases: [], domain: null }] };
    expect(facts('Square Labs leads.', [], book).verdict).toBe('lost');
    expect(facts('Square corners look sharp.', [], book).verdict).toBe('missing');
  });
});

describe('everyday-word names heading an item of a one-line list', () => {
  it.each([
    ['counted like the head of a list line', 'Top options: 1. Notion 2. Square.', ['Zed', 'Square']],
    ['marked up inside the item', 'Top options: 1. **Notion** 2. **Square**', ['Zed', 'Square']],
  ])('%s', (_rule, text, expected) => {
    expect(named(text, BOOK)).toEqual(expected);
  });

  it('not after a lone number that starts no list', () => {
    expect(named('We tried 2. Notion of speed matters.', BOOK)).toEqual([]);
  });
});
