import { stripAccents } from './fold.ts';
import { sentenceAround } from './sentences.ts';

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

export function nameCasing(text: string, start: number, end: number, casings: readonly string[]): NameCasing {
  const written = stripAccents(text.slice(start, end));
  if (casings.includes(written)) return capitalPastFirstLetter(written) ? 'name' : 'first';
  return allCapitals(written) && !allCapitalsAround(text, start, end) ? 'name' : 'none';
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

/** Whether the sentence holding the name has no lower-case letter besides it. */
function allCapitalsAround(text: string, start: number, end: number): boolean {
  const s = sentenceAround(text, start);
  for (let i = s.start; i < s.end; i++) {
    if (i >= start && i < end) continue;
    const c = text[i];
    if (c !== undefined && isLower(c)) return false;
  }
  return true;
}
