import type { BrandBook } from './brand-book.ts';
import { analyseCitations, type CitationFact } from './citations.ts';
import { applyCorrections, type Correction } from './corrections.ts';
import { withoutExcluded } from './exclusions.ts';
import { findListItems } from './lists.ts';
import { findMentions } from './mentions.ts';
import { readNames, type NameReading } from './readings.ts';
import { rankEntities } from './rank.ts';
import { brandTone, type Tone } from './sentiment.ts';
import { isSpace } from './spaces.ts';
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
  /** how much of the text these facts were read from */
  analysis: AnalysisExtent;
}

/**
 * How much of an answer's text analysis read (docs/analysis.md "What
 * analysis reads"). The whole text is always stored and shown; analysis
 * reads at most ANALYSIS_MAX_CHARS of it, and a text it could not read
 * within its time limit (pool.ts) gets facts that say so.
 */
export interface AnalysisExtent {
  /** characters (UTF-16 code units, as brand positions count them) read from the start of the text */
  readChars: number;
  /** the text is longer than analysis reads: nothing after `readChars` was read */
  truncated: boolean;
  /** analysis did not finish within its time (or memory) limit: the facts name nothing and classify no citation */
  timedOut: boolean;
}

/**
 * Analysis reads at most this much of an answer: 25 to 50 times an
 * assistant's usual answer of 2 to 4 KB, and half of the longest reply
 * stored (MAX_ANSWER_BYTES, 200 KB), so no real answer is cut while one
 * analysis stays a few milliseconds whatever text an assistant or an import
 * brings (analysis is linear in what it reads; bench/hostile-text.ts).
 */
export const ANALYSIS_MAX_CHARS = 100_000;
/** How far back from the cap a white space is looked for to cut at. */
const CUT_WINDOW = 1_000;

/**
 * Where analysis stops reading `text`: its end when it fits, else at a white
 * space in the last CUT_WINDOW characters before the cap, so no word is cut
 * into a shorter one ("Acmeville" into "Acme"), else at the cap, moved back a
 * unit rather than split a surrogate pair. Reads nothing past text[cap], so a
 * caller may pass only the first cap + 1 units of a longer text.
 */
export function readEnd(text: string): number {
  if (text.length <= ANALYSIS_MAX_CHARS) return text.length;
  for (let i = ANALYSIS_MAX_CHARS; i > ANALYSIS_MAX_CHARS - CUT_WINDOW; i--) if (isSpace(text.charCodeAt(i))) return i;
  const last = text.charCodeAt(ANALYSIS_MAX_CHARS - 1);
  return last >= 0xd800 && last <= 0xdbff ? ANALYSIS_MAX_CHARS - 1 : ANALYSIS_MAX_CHARS;
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
    analysis: { readChars: 0, truncated: false, timedOut: false },
  };
}

function blank(answer: AnswerInput): boolean {
  return answer.failed || (answer.text ?? '').trim() === '';
}

/**
 * Facts of an answer whose analysis did not finish within its limit (the
 * pool stops its thread): nothing named, so not mentioned and verdict
 * `missing` (the call did not fail, and `failed` would count it so), and its
 * citations kept as given, unclassified, as for citations that are not URLs.
 * Nothing of the answer is read here, on the calling thread.
 */
export function unreadFacts(answer: AnswerInput, book: BrandBook): AnswerFacts {
  if (blank(answer)) return noFacts(book);
  const citations = answer.citations.map((c) => {
    const title = c.title?.trim() ?? '';
    return {
      url: c.url,
      normalizedUrl: c.url.trim(),
      title: title === '' ? null : title,
      domain: '',
      siteType: 'other' as const,
      competitorId: null,
    };
  });
  return {
    ...noFacts(book),
    verdict: 'missing',
    citations,
    analysis: { readChars: 0, truncated: (answer.text ?? '').length > ANALYSIS_MAX_CHARS, timedOut: true },
  };
}

/**
 * Everything reports need from one answer, against one brand book. Pure:
 * the same answer and book always give the same facts, so reanalysis after a
 * change of names is a re-run. A failed call, or an answer with no text,
 * yields verdict `failed` and no other facts. Only the first
 * ANALYSIS_MAX_CHARS of the text are read (readEnd); `analysis` says how
 * much. `corrections`: readers' corrections of this answer (corrections.ts),
 * applied after the reading and before rank, verdict and tone, so every
 * re-read keeps them.
 */
export function analyse(answer: AnswerInput, book: BrandBook, corrections: readonly Correction[] = []): AnswerFacts {
  if (blank(answer)) return noFacts(book);
  const whole = answer.text ?? '';
  const readChars = readEnd(whole);
  const text = readChars === whole.length ? whole : whole.slice(0, readChars);

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
    return {
      name: e?.name ?? '',
      kind: e?.kind ?? 'competitor',
      competitorId: e?.competitorId ?? null,
      position: first[entity] ?? 0,
      count: counts[entity] ?? 0,
    };
  });
  const rankIndex = order.indexOf(0);
  const mentioned = rankIndex >= 0;

  const citations = analyseCitations(answer.citations, book);
  const ownCited = citations.some((c) => c.siteType === 'own');
  const competitorsCited: number[] = [];
  for (const c of citations)
    if (c.competitorId !== null && !competitorsCited.includes(c.competitorId)) competitorsCited.push(c.competitorId);
  const competitorsNamed: number[] = [];
  for (const b of brands) if (b.competitorId !== null) competitorsNamed.push(b.competitorId);

  const tone = mentioned ? brandTone(text, mentions, 0) : null;
  const suggestions = findSuggestions(text, mentions, mentions.length > 1 ? items : findListItems(text), (f) =>
    book.tracked.has(f),
  );

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
    analysis: { readChars, truncated: readChars < whole.length, timedOut: false },
  };
}
