import { describe, expect, it } from 'vitest';
import { compileBrandBook } from '../../../src/analysis/index.ts';
import { findMentions } from '../../../src/analysis/mentions.ts';
import { named } from './helpers.ts';

/**
 * The second round of the reader of everyday-word names (docs/analysis.md "Everyday-word names, read in
 * context"): one example each way per rule, written for this file, not taken from the names set.
 */
const book = (
  name: string,
  competitors: { id: number; name: string; aliases: string[]; domain: string | null }[] = [],
) => ({
  name,
  brandTerms: [],
  domain: `${name.toLowerCase().replace(/[^a-z]/g, '')}.com`,
  competitors: competitors.length > 0 ? competitors : [{ id: 1, name: 'Zorblax', aliases: [], domain: null }],
});

/**
 * Whether the first occurrence of `name` in `text` counts, in an answer that also writes the brand's domain: the
 * domain names the brand without doubt, so each rule must hold against the "named elsewhere" tie-break too.
 */
function counts(name: string, text: string): boolean {
  const b = book(name);
  const answer = `${text} More at ${b.domain}.`;
  const at = answer.toLowerCase().indexOf(name.toLowerCase());
  return findMentions(answer, compileBrandBook(b)).some((m) => m.kind === 'name' && m.start === at);
}

describe('another name around the word', () => {
  it.each([
    [
      'a first name before it, even opening a sentence',
      'Dell',
      'Some history: Michael Dell founded the company in a dorm room.',
    ],
    [
      'a first name before a name that is no everyday word',
      'Kessler',
      'The founder, Sir Thomas Kessler, still runs it.',
    ],
    [
      'a word English capitalises anyway before it, opening a sentence',
      'Columbia',
      'British Columbia has dry snow in January.',
    ],
    ['an institution after it', 'Columbia', 'She studied at Columbia University for two years.'],
    [
      'a division of a conglomerate in another trade after it',
      'GE',
      'The jet engines come from GE Aerospace these days.',
    ],
    ['a road after it', 'Lincoln', 'We drove the old Lincoln Highway for a day.'],
    ['a place of two words', 'Santa Fe', 'The drive to Santa Fe takes an hour.'],
    ['a region', 'Patagonia', 'The wind in southern Patagonia is fierce.'],
  ])('refused: %s', (_rule, name, text) => {
    expect(counts(name, text)).toBe(false);
  });

  it('a first name before a name is no everyday word of its own ("Will", "Mark" stay verbs and nouns)', () => {
    expect(named('Compared tools. Will Kessler ship it?', book('Kessler'))).toEqual(['Kessler']);
  });
});

describe('words, not names', () => {
  it.each([
    ['"x" between numbers, however cased', 'X', 'Use an image of 1600 X 900 pixels.'],
    ['a determiner opening a sentence', 'Every', 'Plan the week ahead. Every small habit adds up over a month.'],
    ['an opening word set off by a comma', 'Indeed', 'Many people wonder. Indeed, most of them never ask.'],
    ['the title after a kind of work', 'Her', 'We watched the film Her on Sunday.'],
    [
      'a phrase of compass point and everyday word, in lower case',
      'North Face',
      'Climb the north face only with a guide.',
    ],
  ])('refused: %s', (_rule, name, text) => {
    expect(counts(name, text)).toBe(false);
  });
});

describe('the brand, as a careful reader reads it', () => {
  it.each([
    ['its own capitals in mixed-case text', 'HERE', 'For fleet routing, HERE is what most logistics teams pick.'],
    ['called the one built for the job', 'Sunday', 'For paying at the table, Sunday is the one built for it.'],
    ['compared with a product named before it', 'Apollo', 'Even a tool as popular as Apollo gets expensive per seat.'],
    ['a nationality word before a function word', 'Swiss', 'Many travellers prefer Swiss for the Zurich connection.'],
    ['its documentation', 'Python', 'That is why the Python documentation is so friendly.'],
  ])('counted: %s', (_rule, name, text) => {
    expect(named(text, book(name))).toEqual([name]);
  });

  it('a determiner before a list of brands belongs to the noun after it ("an Oracle or IBM database")', () => {
    const withIbm = book('Oracle', [{ id: 1, name: 'IBM', aliases: [], domain: null }]);
    expect(named('Most banks still run an Oracle or IBM database.', withIbm)).toEqual(['Oracle', 'IBM']);
  });
});
