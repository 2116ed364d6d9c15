import data from './tone-words.json' with { type: 'json' };
import { END_SENTENCE, type TokenView } from './vader.ts';

/**
 * Which of a sentence's scored words evaluate its subject (docs/analysis.md,
 * Sentiment). VADER scores every lexicon word; a reader does not: "offers a
 * free tier" states a price, "helps prevent fraud" names a problem the
 * subject handles, "tools like Foo" compares, "Yes, it does" answers. Those
 * words lose their valence here, so a sentence whose only scored words are
 * of that kind is neutral, not mildly positive or negative. Runs on the
 * valences of one text before VADER weighs "but" clauses.
 */

const FACTUAL = 1;
const REMEDY = 2;
const LACKING = 4;
const BEFORE_TO = 8;
const DISCOURSE = 16;
const LIKE_SUBJECT = 32;

const LIKE = 64;
const TOO = 128;

/** The word classes, for VaderOptions.wordClasses: the scorer's one lookup per token finds them. */
export const WORD_CLASSES: ReadonlyMap<string, number> = (() => {
  const classes = new Map<string, number>();
  const mark = (words: readonly string[], bit: number): void => {
    for (const w of words) classes.set(w, (classes.get(w) ?? 0) | bit);
  };
  mark(data.factual.words, FACTUAL);
  mark(data.remedies.words, REMEDY);
  mark(data.lacking.words, LACKING);
  mark(data.lacking.before_to, BEFORE_TO);
  mark(data.discourse.words, DISCOURSE);
  mark(data.likeSubjects.words, LIKE_SUBJECT);
  mark(['like', 'likes'], LIKE);
  mark(['too'], TOO);
  return classes;
})();

/** VADER's negation scalar, for a good quality that is missing. */
const NEGATED = -0.74;
/** An excess of anything ("too long", "too many steps") on VADER's scale: a mild fault. */
const EXCESS = -1.0;
/** How many words after a remedy verb or a lack its object may reach, within the clause. */
const REACH = 3;

/** A boundary of clause or sentence right after token i. */
function boundaryAfter(t: TokenView, i: number): boolean {
  return (t.ends[i] ?? 0) !== 0;
}

/** Stated with force: capitals, an exclamation, or a booster just before ("hugely popular"). */
function emphasised(t: TokenView, i: number): boolean {
  if (t.shouted(i) || t.exclaimed(i)) return true;
  if (i > 0 && t.booster(i - 1) && !boundaryAfter(t, i - 1)) return true;
  return i > 1 && t.booster(i - 2) && !boundaryAfter(t, i - 2) && !boundaryAfter(t, i - 1);
}

function clauseHead(t: TokenView, i: number): boolean {
  return i === 0 || boundaryAfter(t, i - 1);
}

function negator(word: string | undefined): boolean {
  return word === 'not' || word === 'never' || (word?.endsWith("n't") ?? false);
}

/** Applies every rule to `v`, the valences of `t`'s tokens, in place. Needs a scorer made with WORD_CLASSES. */
export function keepEvaluative(t: TokenView, v: number[]): void {
  const n = t.lower.length;
  for (let i = 0; i < n; i++) {
    const c = t.classOf(i);
    if (c === 0) continue;
    if ((c & REMEDY) !== 0) remedy(t, v, i);
    if ((c & LACKING) !== 0) lacking(t, v, i, i + 1);
    if ((c & BEFORE_TO) !== 0 && t.lower[i + 1] === 'to' && !boundaryAfter(t, i)) lacking(t, v, i, i + 2);
    if ((c & TOO) !== 0) excess(t, v, i);
    if (v[i] === 0) continue;
    if ((c & FACTUAL) !== 0 && !emphasised(t, i)) v[i] = 0;
    else if ((c & DISCOURSE) !== 0 && discourseMarker(t, i)) v[i] = 0;
    else if ((c & LIKE) !== 0 && !likeIsVerb(t, i)) v[i] = 0;
  }
  names(t, v);
}

/** "Yes, ...", "Well, ...", "... as well": a clause's opener or a filler, not a judgement. */
function discourseMarker(t: TokenView, i: number): boolean {
  if (t.lower[i] === 'well' && t.lower[i - 1] === 'as') return true;
  return clauseHead(t, i) && (boundaryAfter(t, i) || i === t.lower.length - 1) && !emphasised(t, i);
}

/** "users like it", "I'd like": the verb. "tools like Foo", "looks like rain": a comparison. */
function likeIsVerb(t: TokenView, i: number): boolean {
  // A dropped one-letter word before it is "I" or "u" (only letters are kept there).
  const short = t.shortBefore[i];
  if (short === 'i' || short === 'u') return true;
  return i > 0 && !boundaryAfter(t, i - 1) && (t.classOf(i - 1) & LIKE_SUBJECT) !== 0;
}

/** "helps prevent fraud", "reduces downtime": the problem and the verb's own negativity are not the subject's faults. */
function remedy(t: TokenView, v: number[], i: number): void {
  let found = false;
  for (let j = i + 1; j <= i + REACH && j < t.lower.length && !boundaryAfter(t, j - 1); j++) {
    if (t.base(j) < 0) {
      v[j] = 0;
      found = true;
    }
  }
  if (found && t.base(i) < 0) v[i] = 0;
}

/** "lacks reliable sync", "hard to recommend": good words that follow are missing, so negated. */
function lacking(t: TokenView, v: number[], i: number, from: number): void {
  if (negator(t.lower[i - 1])) return;
  for (let j = from; j <= i + REACH && j < t.lower.length && !boundaryAfter(t, j - 1); j++) {
    if ((v[j] ?? 0) > 0) v[j] = (v[j] ?? 0) * NEGATED;
  }
}

/**
 * "too slow", "too long", "too simple for large teams": an excess is a fault.
 * A good word is an excess only with what it is too good for ("too simple
 * for", "too good to be true"); alone, "too funny" means "very" and is left
 * as written. "not too slow" is left to VADER's negation.
 */
function excess(t: TokenView, v: number[], i: number): void {
  const j = i + 1;
  if (j >= t.lower.length || boundaryAfter(t, i) || negator(t.lower[i - 1])) return;
  const value = v[j] ?? 0;
  if (value > 0) {
    const next = boundaryAfter(t, j) ? undefined : t.lower[j + 1];
    if (next === 'to' || next === 'for') v[j] = value * NEGATED;
  } else if (value === 0 && t.base(j) === 0) v[j] = EXCESS;
}

/**
 * Words in a run of capitalised words inside a sentence are a name ("works
 * with Smart Compose", "Best Buy"), not an evaluation. The first word of a
 * sentence may be capitalised for the sentence, so it neither counts as part
 * of a run nor is changed; nor are words of an exclamation ("Happy Birthday!").
 */
function names(t: TokenView, v: number[]): void {
  const n = t.words.length;
  for (let i = 1; i < n; i++) {
    if (v[i] === 0 || !titleCase(t, i) || t.exclaimed(i)) continue;
    if ((titleCase(t, i - 1) && !boundaryAfter(t, i - 1)) || (i + 1 < n && !boundaryAfter(t, i) && titleCase(t, i + 1)))
      v[i] = 0;
  }
}

/** "Compose" or "Smart" inside a sentence; not the sentence's first word, not capitals ("FREE"). */
function titleCase(t: TokenView, i: number): boolean {
  if (i === 0 || ((t.ends[i - 1] ?? 0) & END_SENTENCE) !== 0) return false;
  const w = t.words[i] ?? '';
  const first = w.charCodeAt(0);
  return first >= 65 && first <= 90 && w !== w.toUpperCase();
}
