/**
 * Answer analysis: pure functions from (answer, brand book) to facts. The
 * rules are in docs/analysis.md; nothing here does I/O.
 */
export { analyse, type AnswerFacts, type AnswerInput, type BrandFact } from './analyse.ts';
export { compileBrandBook, type BrandBook, type BrandBookInput } from './brand-book.ts';
export { analyseOffThread, closeAnalysisPool } from './pool.ts';
export { normaliseUrl, type CitationFact } from './citations.ts';
export { hostMatches, normaliseDomain } from './domains.ts';
export { shareOfVoice, stability, visibility, type Stability } from './metrics.ts';
export { toneOf, type Tone } from './sentiment.ts';
export { siteTypeOf, type SiteType } from './site-types.ts';
export { tallySuggestions } from './suggestions.ts';
export { bestVerdict, type Verdict } from './verdict.ts';
