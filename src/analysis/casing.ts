import { stripAccents } from './fold.ts';
import { sentenceAround, type Span } from './sentences.ts';

/**
 * What the capitals of an ambiguous name ("Notion", "Bar Labs", "HP") say
 * about it, for the everyday-word rule of docs/analysis.md:
 * - `none`: not written as the book writes it ("notion", "Bar labs"), or in
 *   capitals inside a sentence that is all capitals, where capitals say nothing;
 * - `first`: as the book writes it, with no capital past its first letter
 *   ("Notion"): at the start of a sentence that capital may be the sentence's;
 * - `name`: capitals a sentence start cannot explain: a later capital the book
 *   gives ("Bar Labs", "HP"), or the whole name in capitals within mixed-case
 *   text ("BAR LABS shipped", "we moved to NOTION").
 */
export type NameCasing = 'none' | 'first' | 'name';

export function nameCasing(text: string, start: number, end: number, casings: readonly string[], around: CapitalsAround = capitalsAround(text)): NameCasing {
  const written = stripAccents(text.slice(start, end));
  if (casings.includes(written)) return capitalPastFirstLetter(written) ? 'name' : 'first';
  return allCapitals(written) && !around(start, end) ? 'name' : 'none';
}

function isUpper(c: string): boolean {
  return c !== c.toLowerCase() && c === c.toUpperCase();
}

function isLower(c: string): boolean {
  return c !== c.toUpperCase() && c === c.toLowerCase();
}

function capitalPastFirstLetter(written: string): boolean {
  let seenLetter = false;
  for (const c of written) {
    const letter = c.toLowerCase() !== c.toUpperCase();
    if (letter && seenLetter && isUpper(c)) return true;
    if (letter) seenLetter = true;
  }
  return false;
}

/**
 * Three letters or more, all capitals. One- and two-letter names keep their
 * exact casing: capitals are how short words are written for emphasis ("GO",
 * "OK"), so "GO" is no sign of a name "Go".
 */
function allCapitals(written: string): boolean {
  let letters = 0;
  for (const c of written) {
    if (isLower(c)) return false;
    if (isUpper(c)) letters++;
  }
  return letters >= 3;
}

/** Whether the sentence holding the name at [start, end) has no lower-case letter besides it. */
export type CapitalsAround = (start: number, end: number) => boolean;

/**
 * CapitalsAround for one text, to ask of each name in it. The sentence last
 * read is kept with its first and last lower-case letters: every name in it
 * is answered from those two, so a sentence of thousands of names in
 * capitals ("NOTION NOTION ...") is read once, not once a name (39 s for
 * 100,000 characters when it was). A name has no lower-case letter itself
 * (allCapitals), so the sentence has none besides it exactly when all its
 * lower-case letters lie in [start, end).
 */
export function capitalsAround(text: string): CapitalsAround {
  let sentence: Span = { start: 0, end: -1 };
  let firstLower = -1;
  let lastLower = -1;
  return (start, end) => {
    // Any offset inside a sentence finds that same sentence (sentences.ts), so it is reused while names fall in it.
    if (start < sentence.start || start >= sentence.end) {
      sentence = sentenceAround(text, start);
      firstLower = -1;
      lastLower = -1;
      for (let i = sentence.start; i < sentence.end; i++) {
        if (isLower(text[i] ?? '')) {
          firstLower = i;
          break;
        }
      }
      for (let i = sentence.end - 1; i >= sentence.start && firstLower >= 0; i--) {
        if (isLower(text[i] ?? '')) {
          lastLower = i;
          break;
        }
      }
    }
    return firstLower < 0 || (firstLower >= start && lastLower < end);
  };
}
