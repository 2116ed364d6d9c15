import { keepEvaluative, WORD_CLASSES } from './evaluative.ts';
import type { Mention } from './mentions.ts';
import review from './review-lexicon.json' with { type: 'json' };
import data from './sentiment-lexicon.json' with { type: 'json' };
import { sentenceAround, type Span } from './sentences.ts';
import { createVader, type VaderOptions } from './vader.ts';

export type Tone = 'positive' | 'neutral' | 'negative';

/** VADER's own cut-offs; the labelled set (docs/analysis.md) found no better pair. */
export const POSITIVE_FROM = 0.05;
export const NEGATIVE_FROM = -0.05;

/** The scorer's lexicons and rules; exported so the evaluation can try a rule on top of exactly these. */
export const SCORER_OPTIONS: VaderOptions = { extraWords: { ...review.words, ...data.words }, extraPhrases: data.phrases, wordClasses: WORD_CLASSES, adjust: keepEvaluative };

const vader = createVader(SCORER_OPTIONS);

export function toneOf(score: number): Tone {
  if (score >= POSITIVE_FROM) return 'positive';
  if (score <= NEGATIVE_FROM) return 'negative';
  return 'neutral';
}

/**
 * Runs of white space that are not a lone space. Replacing these with one
 * space gives what replacing every `\s+` run gives, but leaves a text that
 * is already single-spaced untouched instead of rebuilding it.
 */
const SPACE_RUN = /\s{2,}|[^\S ]/g;

/** Markdown, links and list markers say nothing about tone; names are replaced so a name like "Best Buy" does not score. */
export function plainForScoring(text: string, names: readonly { start: number; end: number }[]): string {
  let out = '';
  let at = 0;
  for (const n of names) {
    out += text.slice(at, n.start) + 'Brand';
    at = n.end;
  }
  out += text.slice(at);
  if (!/[[\]*_`#|>•]|https?:|^\s*\d/.test(out)) return out.replace(SPACE_RUN, ' ').trim();
  // A link needs "[" and a URL "://": without them those two passes change nothing.
  if (out.includes('[')) out = out.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  if (out.includes('://')) out = out.replace(/https?:\/\/\S+/g, ' ');
  return out
    .replace(/^\s*(?:#{1,6}\s*)?(?:\d{1,3}[.)]|[-*+•>|])\s+/, '')
    .replace(/\*\*|__|`|#{1,6}\s/g, '')
    .replace(SPACE_RUN, ' ')
    .trim();
}

const CONTRAST = /\s*(?:[,;:]\s*(?:and|but|however|whereas|while|although|though|yet)\b|;|\s(?:but|whereas)\s)/gi;

/**
 * The part of a sentence that speaks of one brand: when a contrast splits
 * the sentence and the other side names other brands but not this one
 * ("Foo is great, but Acme is slow"), only this brand's side is scored.
 */
export function brandClause(sentence: Span, text: string, mentions: readonly Mention[], entity: number): Span {
  const body = text.slice(sentence.start, sentence.end);
  const cuts: number[] = [sentence.start];
  for (const m of body.matchAll(CONTRAST)) cuts.push(sentence.start + m.index);
  cuts.push(sentence.end);
  if (cuts.length === 2) return sentence;
  const inside = mentions.filter((m) => m.start >= sentence.start && m.end <= sentence.end);
  let clause: Span | null = null;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const part = { start: cuts[i] ?? 0, end: cuts[i + 1] ?? 0 };
    const here = inside.filter((m) => m.start >= part.start && m.start < part.end);
    const mine = here.some((m) => m.entity === entity);
    if (!mine) continue;
    if (here.some((m) => m.entity !== entity) || clause !== null) return sentence;
    clause = part;
  }
  if (clause === null) return sentence;
  const othersOutside = inside.some((m) => m.entity !== entity && (m.start < clause.start || m.start >= clause.end));
  return othersOutside ? clause : sentence;
}

/** Mentions inside `span`, as offsets into it; `mentions` in text order, so the walk stops past the span. */
function namesWithin(mentions: readonly Mention[], span: Span): Span[] {
  const names: Span[] = [];
  for (const x of mentions) {
    if (x.start >= span.end) break;
    if (x.start >= span.start && x.end <= span.end) names.push({ start: x.start - span.start, end: x.end - span.start });
  }
  return names;
}

export interface ToneFact {
  tone: Tone;
  score: number;
  quote: string;
}

const QUOTE_MAX = 400;

/**
 * Tone of the brand in one answer: every sentence naming it is scored
 * (its own clause when a contrast sets it against other brands); the score
 * is the mean, the tone its class, and the quote the sentence that pulls
 * hardest in the tone's direction (for a neutral tone, the first sentence
 * naming the brand). Null when the brand is not named.
 */
export function brandTone(text: string, mentions: readonly Mention[], entity: number): ToneFact | null {
  const own = mentions.filter((m) => m.entity === entity);
  if (own.length === 0) return null;
  const scored: { score: number; span: Span }[] = [];
  let last = -1;
  for (const m of own) {
    if (m.start < last) continue;
    const sentence = sentenceAround(text, m.start);
    last = sentence.end;
    const clause = brandClause(sentence, text, mentions, entity);
    scored.push({ score: vader.score(plainForScoring(text.slice(clause.start, clause.end), namesWithin(mentions, clause))), span: sentence });
  }
  if (scored.length === 0) return null;
  const score = Math.round((scored.reduce((a, x) => a + x.score, 0) / scored.length) * 10000) / 10000;
  const tone = toneOf(score);
  let pick = scored[0];
  for (const x of scored) {
    if (pick === undefined) break;
    if (tone === 'positive' && x.score > pick.score) pick = x;
    if (tone === 'negative' && x.score < pick.score) pick = x;
  }
  const quote = pick === undefined ? '' : plainForScoring(text.slice(pick.span.start, pick.span.end), []).slice(0, QUOTE_MAX);
  return { tone, score, quote };
}

/** Score of one sentence about a brand, for the evaluation and tests. */
export function scoreSentence(sentence: string): number {
  return vader.score(plainForScoring(sentence, []));
}
