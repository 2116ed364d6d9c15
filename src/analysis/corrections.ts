import type { RawHit } from './automaton.ts';
import { foldName, type BrandBook } from './brand-book.ts';
import { fold } from './fold.ts';
import { nameFits, type Mention } from './mentions.ts';
import { tokensOf, type Tokens } from './tokens.ts';
import { findUrlSpans, spanAt, type UrlSpan } from './urls.ts';

/**
 * A reader's correction of one answer's reading (POST
 * /projects/:id/mention-feedback): whether a tracked name is meant in it.
 * Names are compared folded, as the book folds them.
 */
export interface Correction {
  name: string;
  mentioned: boolean;
}

/**
 * Applies an answer's corrections to what the reading counted, before rank,
 * verdict and tone are worked out from it:
 * - `mentioned: false` refuses every occurrence of that name in the answer
 *   (its domain written out still counts: nobody writes `acme.com` meaning
 *   anything else);
 * - `mentioned: true` counts every whole-word occurrence of that name, also
 *   where the reading refused it, except inside an exclusion phrase (`hits`
 *   come after exclusions) or where a longer counted name holds it.
 * Refusals go first, so "not Foo Cloud" with "Foo" lets the "Foo" inside
 * "Foo Cloud" count. Mentions stay in text order, none overlapping.
 */
export function applyCorrections(
  text: string,
  hits: readonly RawHit[],
  mentions: readonly Mention[],
  corrections: readonly Correction[],
  book: BrandBook,
): Mention[] {
  const refused = new Set<string>();
  const accepted = new Set<string>();
  for (const c of corrections) (c.mentioned ? accepted : refused).add(foldName(c.name));
  const kept =
    refused.size === 0
      ? [...mentions]
      : mentions.filter((m) => m.kind !== 'name' || !refused.has(fold(text.slice(m.start, m.end))));
  if (accepted.size === 0) return kept;
  let urls: UrlSpan[] | null = null;
  const wanted: Mention[] = [];
  // The text's dotted tokens, walked once for all its names.
  let tokens: Tokens | null = null;
  for (const h of hits) {
    const info = book.info[h.pattern];
    if (info?.kind !== 'name' || !accepted.has(book.patterns[h.pattern] ?? '')) continue;
    urls ??= findUrlSpans(text);
    if (spanAt(urls, h.start) !== null || !nameFits(text, h.start, h.end, (tokens ??= tokensOf(text)))) continue;
    wanted.push({ entity: info.entity, start: h.start, end: h.end, kind: 'name' });
  }
  // The longest first at one place, as the reading does: "Foo Cloud" over the "Foo" in it.
  wanted.sort((a, b) => a.start - b.start || b.end - a.end);
  for (const w of wanted) if (!kept.some((m) => m.start < w.end && w.start < m.end)) kept.push(w);
  return kept.sort((a, b) => a.start - b.start);
}
