import type { RawHit } from './automaton.ts';
import type { BrandBook } from './brand-book.ts';
import { nameFits, type Mention } from './mentions.ts';
import { tokensOf, type Tokens } from './tokens.ts';
import { sentenceAround } from './sentences.ts';
import { findUrlSpans, spanAt, type UrlSpan } from './urls.ts';

/**
 * How one tracked name (the brand's name, a brand term, a competitor's name
 * or alias) was read in one answer: how many of its whole-word occurrences
 * counted and how many were refused (an everyday word not meant as the
 * brand, an exclusion phrase, a reader's correction), and where the first of
 * each is, as [start, end) offsets into the answer's text. What the names
 * list and the dry-run preview show a customer (with `quoteAround` of those
 * places), so they can see a reading and correct it.
 *
 * Offsets, not quotes: a quote costs about a microsecond to cut, a quarter
 * of the analysis of an answer naming forty brands, and 100-200 bytes per
 * name per stored answer, while the names list shows three examples a name.
 */
export interface NameReading {
  /** The name as the brand book spells it. */
  name: string;
  /** `brand`, or the competitor's id. */
  entity: 'brand' | number;
  counted: number;
  refused: number;
  /** The first counted occurrence, [start, end) in UTF-16 units of the text. */
  countedAt?: [number, number];
  /** The first refused occurrence. */
  refusedAt?: [number, number];
}

/** Longest quote, in characters: a sentence, cut around the name when longer. */
export const QUOTE_MAX = 200;

/**
 * Every name that occurs as a whole word, with counts. `hits` are the
 * automaton's hits before exclusions (an excluded occurrence is a refused
 * one), `mentions` what was finally counted, in text order. An occurrence
 * inside a longer counted name ("Foo" in "Foo Cloud") is neither: it is
 * part of that name. Costs one look-up per hit; the URL and word-boundary
 * checks run only for hits that did not count.
 */
export function readNames(
  text: string,
  hits: readonly RawHit[],
  mentions: readonly Mention[],
  book: BrandBook,
): NameReading[] {
  if (hits.length === 0) return [];
  const byPattern = new Map<number, NameReading>();
  let urls: UrlSpan[] | null = null;
  // The text's dotted tokens, walked once for all its names.
  let tokens: Tokens | null = null;
  for (const h of hits) {
    const info = book.info[h.pattern];
    if (info?.kind !== 'name') continue;
    const at = covering(mentions, h.start, h.end);
    const counted = at !== null && at.start === h.start && at.end === h.end && at.kind === 'name';
    if (!counted) {
      if (at !== null) continue;
      urls ??= findUrlSpans(text);
      if (spanAt(urls, h.start) !== null || !nameFits(text, h.start, h.end, (tokens ??= tokensOf(text)))) continue;
    }
    let reading = byPattern.get(h.pattern);
    if (reading === undefined) {
      const e = book.entities[info.entity];
      reading = {
        name: book.spellings[h.pattern] ?? '',
        entity: e === undefined || e.competitorId === null ? 'brand' : e.competitorId,
        counted: 0,
        refused: 0,
      };
      byPattern.set(h.pattern, reading);
    }
    // Hits arrive in end order: a name inside a longer one can come after a later start.
    if (counted) {
      reading.counted++;
      if (reading.countedAt === undefined || h.start < reading.countedAt[0]) reading.countedAt = [h.start, h.end];
    } else {
      reading.refused++;
      if (reading.refusedAt === undefined || h.start < reading.refusedAt[0]) reading.refusedAt = [h.start, h.end];
    }
  }
  return [...byPattern.values()];
}

/** The mention (in start order, none overlapping) whose span holds [start, end), if any: a binary search. */
function covering(mentions: readonly Mention[], start: number, end: number): Mention | null {
  let lo = 0;
  let hi = mentions.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if ((mentions[mid]?.start ?? 0) <= start) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const m = found >= 0 ? mentions[found] : undefined;
  return m !== undefined && m.end >= end ? m : null;
}

/**
 * The sentence around an occurrence, on one line, cut at words to QUOTE_MAX
 * characters around it when longer. `text` may be a prefix of the answer
 * that runs at least QUOTE_MAX past `end`: the quote is the same.
 */
export function quoteAround(text: string, start: number, end: number): string {
  const s = sentenceAround(text, start);
  let a = Math.min(s.start, start);
  let b = Math.max(s.end, end);
  if (b - a > QUOTE_MAX) {
    const room = Math.max(0, QUOTE_MAX - (end - start));
    const from = Math.max(a, start - Math.floor(room / 2));
    const to = Math.min(b, from + (end - start) + room);
    const cutStart = from > a;
    const cutEnd = to < b;
    a = cutStart ? wordStartAfter(text, from, start) : from;
    b = cutEnd ? wordEndBefore(text, to, end) : to;
    return `${cutStart ? '…' : ''}${oneLine(text.slice(a, b))}${cutEnd ? '…' : ''}`;
  }
  return oneLine(text.slice(a, b));
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The first word start at or after `i` (not past `limit`), so a cut quote does not open mid-word. */
function wordStartAfter(text: string, i: number, limit: number): number {
  const space = text.slice(i, limit).search(/\s/);
  return space < 0 ? i : i + space + 1;
}

/** The last word end at or before `i` (not before `limit`). */
function wordEndBefore(text: string, i: number, limit: number): number {
  const before = text.slice(limit, i);
  const space = before.search(/\s\S*$/);
  return space < 0 ? i : limit + space;
}
