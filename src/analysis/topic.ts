import type { BrandBook } from './brand-book.ts';
import { isFunctionWord } from './lexicon.ts';

/**
 * What an answer is about, as far as the reader of everyday-word names asks
 * (reading.ts): whether words of the tracked names' own terms ("work
 * management", "insurance", "app") stand near a name, and whether a name
 * heads an item of a list or a table's row. (The site's industry was
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

interface Filter {
  /** lower-case ASCII first letters of the topic words (a word opening with another letter is none of them) */
  first: Uint8Array;
  shortest: number;
  longest: number;
}

const filters = new WeakMap<BrandBook, Filter>();

function filterOf(book: BrandBook): Filter {
  let f = filters.get(book);
  if (f === undefined) {
    const first = new Uint8Array(128);
    let shortest = Infinity;
    let longest = 0;
    for (const w of book.topicWords) {
      const c = w.charCodeAt(0);
      if (c < 128) first[c] = 1;
      else first.fill(1);
      shortest = Math.min(shortest, w.length);
      longest = Math.max(longest, w.length);
    }
    f = { first, shortest, longest };
    filters.set(book, f);
  }
  return f;
}

/** How far around a name a topic word counts as near it, each way. */
const NEAR = 120;

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c > 127 && /\p{L}/u.test(String.fromCharCode(c)));
}

/**
 * Whether a topic word stands within NEAR characters of [start, end), outside every name of `names` (in text
 * order): "labs" in "Bar Labs" is the name, not its topic. Reads only that window, so an answer costs its names'
 * windows, not its length.
 */
export function topicNear(
  text: string,
  book: BrandBook,
  names: readonly { start: number; end: number }[],
  start: number,
  end: number,
): boolean {
  const words = book.topicWords;
  if (words.size === 0) return false;
  let i = Math.max(0, start - NEAR);
  const stop = Math.min(text.length, end + NEAR);
  // Back to the start of the word the window opens in.
  while (i > 0 && isLetter(text.charCodeAt(i - 1))) i--;
  // The first name that ends after i, by bisection; names after it are met in order.
  let lo = 0;
  let hi = names.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((names[mid]?.end ?? 0) <= i) lo = mid + 1;
    else hi = mid;
  }
  let n = lo;
  const { first, shortest, longest } = filterOf(book);
  while (i < stop) {
    if (!isLetter(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const from = i;
    while (i < text.length && (isLetter(text.charCodeAt(i)) || (text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57)))
      i++;
    // Most words fail on their first letter or length, before a string is cut for the look-up.
    const c = text.charCodeAt(from) | 32;
    if (i - from < shortest || i - from > longest + 1 || (c < 128 && first[c] !== 1)) continue;
    while (n < names.length && (names[n]?.end ?? 0) <= from) n++;
    if (n < names.length && (names[n]?.start ?? Infinity) <= from) continue;
    if (words.has(topicKey(text.slice(from, i)))) return true;
  }
  return false;
}
