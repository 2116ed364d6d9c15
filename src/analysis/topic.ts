import type { BrandBook } from './brand-book.ts';
import { isFunctionWord } from './lexicon.ts';

/**
 * What an answer is about, as far as the reader of everyday-word names asks
 * (reading.ts): whether words of the tracked names' own terms ("work
 * management", "insurance", "app") stand in it and near a name, and whether
 * a name heads an item of a list or a table's row. (The site's industry was
 * tried as a source of such words too and moved the grouped cross-validation
 * by a tenth of a point, so the brand book does not carry it.)
 */

/** A name's start heads an item: "1. **Monday**", "- Asana", "| Sunday |", "### 2. Grab". */
export function headsItem(text: string, start: number, lineStartOf: (at: number) => number): boolean {
  const lineStart = lineStartOf(start);
  return start - lineStart <= 40 && HEAD.test(text.slice(lineStart, start));
}

const HEAD = /^\s*(?:(?:#{1,6}\s+)?\d{1,3}[.)]\s+|[-*+•]\s+|\|\s*)(?:\*\*|__|\[)?$/;

/** A word as topic words are compared: lower case, a plural's "s" dropped. */
export function topicKey(word: string): string {
  const w = word.toLowerCase();
  return w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

/**
 * The topic words of a book: the words of its names of more than one word ("monday work management", "Hippo
 * Insurance", "Harvest app"), less function words, words of two letters or fewer, and the words that are themselves
 * a tracked name (they are read as names).
 */
export function topicWordsOf(names: readonly string[]): Set<string> {
  const single = new Set(names.filter((n) => !/\s/.test(n.trim())).map((n) => topicKey(n.trim())));
  const out = new Set<string>();
  const add = (phrase: string) => {
    for (const w of phrase.split(/[^\p{L}\p{N}]+/u)) {
      const key = topicKey(w);
      if (key.length > 2 && !isFunctionWord(key) && !single.has(key)) out.add(key);
    }
  };
  for (const n of names) if (/\s/.test(n.trim())) add(n);
  return out;
}

/** How far around a name a topic word counts as near it, each way. */
const NEAR = 120;
/** Topic words an answer must hold to be about the topic. */
const IN_ANSWER = 2;

export interface Topic {
  inAnswer: boolean;
  near(start: number, end: number): boolean;
}

const NONE: Topic = { inAnswer: false, near: () => false };

/** The offsets of the answer's topic words, walked once (only answers holding an ambiguous name get here). */
export function topicOf(text: string, book: BrandBook): Topic {
  const words = book.topicWords;
  if (words.size === 0) return NONE;
  const at: number[] = [];
  const re = /\p{L}[\p{L}\p{N}]*/gu;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) if (words.has(topicKey(m[0]))) at.push(m.index);
  if (at.length === 0) return NONE;
  return {
    inAnswer: at.length >= IN_ANSWER,
    near(start, end) {
      // The first topic word at or after start - NEAR, by bisection.
      let lo = 0;
      let hi = at.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((at[mid] ?? 0) < start - NEAR) lo = mid + 1;
        else hi = mid;
      }
      const w = at[lo];
      return w !== undefined && w <= end + NEAR;
    },
  };
}
