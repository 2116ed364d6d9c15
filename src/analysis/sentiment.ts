import { keepEvaluative, WORD_CLASSES } from './evaluative.ts';
import type { Mention } from './mentions.ts';
import review from './review-lexicon.json' with { type: 'json' };
import data from './sentiment-lexicon.json' with { type: 'json' };
import { sentenceAround, type Span } from './sentences.ts';
import { isSpace } from './spaces.ts';
import { createVader, type VaderOptions } from './vader.ts';

export type Tone = 'positive' | 'neutral' | 'negative';

/** VADER's own cut-offs; the labelled set (docs/analysis.md) found no better pair. */
export const POSITIVE_FROM = 0.05;
export const NEGATIVE_FROM = -0.05;

/** The scorer's lexicons and rules; exported so the evaluation can try a rule on top of exactly these. */
export const SCORER_OPTIONS: VaderOptions = {
  extraWords: { ...review.words, ...data.words },
  extraPhrases: data.phrases,
  wordClasses: WORD_CLASSES,
  adjust: keepEvaluative,
};

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
  if (out.includes('[')) out = linkTexts(out);
  if (out.includes('://')) out = out.replace(/https?:\/\/\S+/g, ' ');
  return out
    .replace(/^\s*(?:#{1,6}\s*)?(?:\d{1,3}[.)]|[-*+•>|])\s+/, '')
    .replace(/\*\*|__|`|#{1,6}\s/g, '')
    .replace(SPACE_RUN, ' ')
    .trim();
}

/**
 * `[text](url)` links replaced by their text, as `s.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')`
 * would, in one pass: that expression reads from every "[" to the next "]"
 * and from every "](" to the next ")", so a sentence of 100,000 "[" took 12 s.
 * Here the next "]" and ")" are found once and kept while they are ahead.
 */
export function linkTexts(s: string): string {
  let out = '';
  let from = 0;
  let close = -1;
  let paren = -1;
  for (let open = s.indexOf('['); open >= 0;) {
    if (close <= open) close = s.indexOf(']', open + 1);
    // No "]" (or, below, no ")") ahead: no later "[" can start a link either.
    if (close < 0) break;
    if (s.charCodeAt(close + 1) !== 40) {
      open = s.indexOf('[', open + 1);
      continue;
    }
    if (paren <= close + 1) paren = s.indexOf(')', close + 2);
    if (paren < 0) break;
    out += s.slice(from, open) + s.slice(open + 1, close);
    from = paren + 1;
    open = s.indexOf('[', from);
  }
  return from === 0 ? s : out + s.slice(from);
}

/**
 * What cuts a sentence into clauses. A cut starts at the white space before
 * its mark ("great , but" cuts before the space), but the expression does not
 * begin with `\s*`: under /g that tried every position of a run of white space
 * and read the rest of the run from each (29 s for 200 KB of spaces), so the
 * run is walked back from the mark instead (clauseCuts).
 */
const CONTRAST = /[,;:]\s*(?:and|but|however|whereas|while|although|though|yet)\b|;|\s(?:but|whereas)\s/gi;

/** Offsets in `body` where clauses start, as `/\s*(?:<CONTRAST>)/gi` would match: each mark with the white space before it, back to the previous cut's end. */
export function clauseCuts(body: string): number[] {
  const cuts: number[] = [];
  let previousEnd = 0;
  for (const m of body.matchAll(CONTRAST)) {
    let at = m.index;
    while (at > previousEnd && isSpace(body.charCodeAt(at - 1))) at--;
    cuts.push(at);
    previousEnd = m.index + m[0].length;
  }
  return cuts;
}

/** Index of the first mention starting at or after `offset`; `mentions` in text order. */
function firstFrom(mentions: readonly Mention[], offset: number): number {
  let lo = 0;
  let hi = mentions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((mentions[mid]?.start ?? 0) < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Mentions wholly inside `span`, in text order. */
function mentionsIn(mentions: readonly Mention[], span: Span): Mention[] {
  const inside: Mention[] = [];
  for (let i = firstFrom(mentions, span.start); i < mentions.length; i++) {
    const m = mentions[i]!;
    if (m.start >= span.end) break;
    if (m.end <= span.end) inside.push(m);
  }
  return inside;
}

/**
 * The part of a sentence that speaks of one brand: when a contrast splits
 * the sentence and the other side names other brands but not this one
 * ("Foo is great, but Acme is slow"), only this brand's side is scored.
 * Clauses and mentions are both in text order and walked together, so a
 * sentence of thousands of clauses costs no more than its length.
 */
export function brandClause(sentence: Span, text: string, mentions: readonly Mention[], entity: number): Span {
  const inner = clauseCuts(text.slice(sentence.start, sentence.end));
  if (inner.length === 0) return sentence;
  const cuts = [sentence.start];
  for (const c of inner) cuts.push(sentence.start + c);
  cuts.push(sentence.end);
  const inside = mentionsIn(mentions, sentence);
  let clause: Span | null = null;
  let k = 0;
  for (let i = 0; i + 1 < cuts.length; i++) {
    const part = { start: cuts[i] ?? 0, end: cuts[i + 1] ?? 0 };
    while (k < inside.length && (inside[k]?.start ?? 0) < part.start) k++;
    let mine = false;
    let others = false;
    for (let j = k; j < inside.length && (inside[j]?.start ?? 0) < part.end; j++) {
      if (inside[j]?.entity === entity) mine = true;
      else others = true;
    }
    if (!mine) continue;
    if (others || clause !== null) return sentence;
    clause = part;
  }
  if (clause === null) return sentence;
  const othersOutside = inside.some((m) => m.entity !== entity && (m.start < clause.start || m.start >= clause.end));
  return othersOutside ? clause : sentence;
}

/** Mentions inside `span`, as offsets into it; found from the first one at the span's start, not walked from the text's start. */
function namesWithin(mentions: readonly Mention[], span: Span): Span[] {
  const names: Span[] = [];
  for (let i = firstFrom(mentions, span.start); i < mentions.length; i++) {
    const x = mentions[i]!;
    if (x.start >= span.end) break;
    if (x.end <= span.end) names.push({ start: x.start - span.start, end: x.end - span.start });
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
    scored.push({
      score: vader.score(plainForScoring(text.slice(clause.start, clause.end), namesWithin(mentions, clause))),
      span: sentence,
    });
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
  const quote =
    pick === undefined ? '' : plainForScoring(text.slice(pick.span.start, pick.span.end), []).slice(0, QUOTE_MAX);
  return { tone, score, quote };
}

/** Score of one sentence about a brand, for the evaluation and tests. */
export function scoreSentence(sentence: string): number {
  return vader.score(plainForScoring(sentence, []));
}
