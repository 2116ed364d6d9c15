import type { BrandBook } from './brand-book.ts';
import { analyseCitations, type CitationFact } from './citations.ts';
import { applyCorrections, type Correction } from './corrections.ts';
import { withoutExcluded } from './exclusions.ts';
import { findListItems } from './lists.ts';
import { findMentions } from './mentions.ts';
import { readNames, type NameReading } from './readings.ts';
import { rankEntities } from './rank.ts';
import { brandTone, type Tone } from './sentiment.ts';
import { findSuggestions } from './suggestions.ts';
import { verdictOf, type Verdict } from './verdict.ts';

export interface AnswerInput {
  text: string | null;
  /** `domain`: the source's domain as the provider names it, where the URL is a redirect. */
  citations: { url: string; title?: string | null; domain?: string | null }[];
  failed: boolean;
}

export interface BrandFact {
  name: string;
  kind: 'brand' | 'competitor';
  competitorId: number | null;
  /** offset of the first mention */
  position: number;
  /** mentions of this brand in the answer */
  count: number;
}

export interface AnswerFacts {
  verdict: Verdict;
  mentioned: boolean;
  ownCited: boolean;
  brandRank: number | null;
  brandPosition: number | null;
  brands: BrandFact[];
  competitorsNamed: number[];
  competitorsCited: number[];
  citations: CitationFact[];
  tone: Tone | null;
  toneScore: number | null;
  quote: string | null;
  suggestions: string[];
  /** every tracked name that occurs as a whole word: how often it counted and was refused (readings.ts) */
  names: NameReading[];
  /** the brand book version these facts were derived from */
  bookKey: string;
}

function noFacts(book: BrandBook): AnswerFacts {
  return {
    verdict: 'failed',
    mentioned: false,
    ownCited: false,
    brandRank: null,
    brandPosition: null,
    brands: [],
    competitorsNamed: [],
    competitorsCited: [],
    citations: [],
    tone: null,
    toneScore: null,
    quote: null,
    suggestions: [],
    names: [],
    bookKey: book.key,
  };
}

/**
 * Everything reports need from one answer, against one brand book. Pure:
 * the same answer and book always give the same facts, so reanalysis after a
 * change of names is a re-run. A failed call, or an answer with no text,
 * yields verdict `failed` and no other facts. `corrections`: readers'
 * corrections of this answer (corrections.ts), applied after the reading
 * and before rank, verdict and tone, so every re-read keeps them.
 */
export function analyse(answer: AnswerInput, book: BrandBook, corrections: readonly Correction[] = []): AnswerFacts {
  const text = answer.text ?? '';
  if (answer.failed || text.trim() === '') return noFacts(book);

  const hits = book.scan(text);
  const allowed = book.exclusions ? withoutExcluded(text, hits, book) : hits;
  const read = findMentions(text, book, allowed);
  const mentions = corrections.length > 0 ? applyCorrections(text, allowed, read, corrections, book) : read;
  const items = mentions.length > 1 ? findListItems(text) : [];
  const order = rankEntities(mentions, items);
  // Entities are small indices into book.entities: arrays, not Maps, count them.
  const counts = new Array<number>(book.entities.length).fill(0);
  const first = new Array<number>(book.entities.length).fill(-1);
  for (const m of mentions) {
    const seen = counts[m.entity] ?? 0;
    if (seen === 0) first[m.entity] = m.start;
    counts[m.entity] = seen + 1;
  }
  const brands: BrandFact[] = order.map((entity) => {
    const e = book.entities[entity];
    return { name: e?.name ?? '', kind: e?.kind ?? 'competitor', competitorId: e?.competitorId ?? null, position: first[entity] ?? 0, count: counts[entity] ?? 0 };
  });
  const rankIndex = order.indexOf(0);
  const mentioned = rankIndex >= 0;

  const citations = analyseCitations(answer.citations, book);
  const ownCited = citations.some((c) => c.siteType === 'own');
  const competitorsCited: number[] = [];
  for (const c of citations) if (c.competitorId !== null && !competitorsCited.includes(c.competitorId)) competitorsCited.push(c.competitorId);
  const competitorsNamed: number[] = [];
  for (const b of brands) if (b.competitorId !== null) competitorsNamed.push(b.competitorId);

  const tone = mentioned ? brandTone(text, mentions, 0) : null;
  const suggestions = findSuggestions(text, mentions, mentions.length > 1 ? items : findListItems(text), (f) => book.tracked.has(f));

  return {
    verdict: verdictOf({ failed: false, ownCited, mentioned, competitorNamed: competitorsNamed.length > 0 }),
    mentioned,
    ownCited,
    brandRank: mentioned ? rankIndex + 1 : null,
    brandPosition: mentioned ? (first[0] ?? null) : null,
    brands,
    competitorsNamed,
    competitorsCited,
    citations,
    tone: tone?.tone ?? null,
    toneScore: tone?.score ?? null,
    quote: tone?.quote ?? null,
    suggestions,
    names: readNames(text, hits, mentions, book),
    bookKey: book.key,
  };
}
