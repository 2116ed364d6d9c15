/**
 * Answer analysis: pure functions from (answer, brand book) to facts. The
 * rules are in docs/analysis.md; nothing here does I/O.
 */
export {
  analyse,
  ANALYSIS_MAX_CHARS,
  type AnalysisExtent,
  type AnswerFacts,
  type AnswerInput,
  type BrandFact,
} from './analyse.ts';
export { ambiguityOf, type Ambiguity } from './ambiguity.ts';
export { compileBrandBook, foldName, type BrandBook, type BrandBookInput } from './brand-book.ts';
export { type Correction } from './corrections.ts';
export { QUOTE_MAX, quoteAround, type NameReading } from './readings.ts';
export { createAnalysisPool, type AnalysisPool, type OffThreadOptions } from './pool.ts';
export { normaliseUrl, type CitationFact } from './citations.ts';
export { hostMatches, normaliseDomain } from './domains.ts';
export {
  clusterBootstrap,
  clusteredShare,
  clusterSums,
  countChange,
  realChange,
  wilson,
  type ClusterSums,
  type CountChange,
  type Interval,
  type ShareEstimate,
} from './intervals.ts';
export {
  shareOfVoice,
  stability,
  stabilityChange,
  visibility,
  type PeriodCounts,
  type Stability,
  type StabilityChange,
} from './metrics.ts';
export { toneOf, type Tone } from './sentiment.ts';
export { siteTypeOf, type SiteType } from './site-types.ts';
export { tallySuggestions } from './suggestions.ts';
export { bestVerdict, type Verdict } from './verdict.ts';
