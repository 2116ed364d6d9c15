import type { RawHit } from './automaton.ts';
import type { BrandBook } from './brand-book.ts';
import { isWordAt } from './fold.ts';

/**
 * Exclusion phrases (`excludePhrases` of a site or competitor): a phrase in
 * which an entity's names never count, such as "Amazon rainforest" for
 * Amazon. Applied to the automaton's hits before any other rule: an
 * occurrence of an entity's name (or domain) that lies inside a whole-word
 * occurrence of one of that entity's own phrases is dropped, as are the
 * phrases' own hits. Another entity's phrase changes nothing: "Amazon
 * rainforest" excluded for Amazon still lets a competitor named
 * "Rainforest" count there.
 */
export function withoutExcluded(text: string, hits: readonly RawHit[], book: BrandBook): RawHit[] {
  const spans = excludedSpans(text, hits, book);
  if (spans.length === 0) return hits.filter((h) => book.info[h.pattern]?.kind !== 'exclude');
  return hits.filter((h) => {
    const info = book.info[h.pattern];
    if (info === undefined || info.kind === 'exclude') return false;
    return !spans.some((s) => s.entity === info.entity && s.start <= h.start && h.end <= s.end);
  });
}

/** The book's hits in the text that may name an entity: exclusions applied when the book has any. */
export function allowedHits(text: string, book: BrandBook): RawHit[] {
  const hits = book.scan(text);
  return book.exclusions ? withoutExcluded(text, hits, book) : hits;
}

interface ExcludedSpan {
  entity: number;
  start: number;
  end: number;
}

/** Where each entity's exclusion phrases occur as whole words (folded, as names are matched). */
function excludedSpans(text: string, hits: readonly RawHit[], book: BrandBook): ExcludedSpan[] {
  const spans: ExcludedSpan[] = [];
  for (const h of hits) {
    const excludes = book.info[h.pattern]?.excludes;
    if (excludes === undefined || !wholeWords(text, h.start, h.end)) continue;
    for (const entity of excludes) spans.push({ entity, start: h.start, end: h.end });
  }
  return spans;
}

/** Not part of a longer word at either end ("Amazon rainforests" is not "Amazon rainforest"). */
function wholeWords(text: string, start: number, end: number): boolean {
  if (isWordAt(text, start) && isWordAt(text, start - 1)) return false;
  return !(isWordAt(text, end - 1) && isWordAt(text, end));
}
