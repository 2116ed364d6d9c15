import { IS_WORD } from './fold.ts';

/**
 * Tokens for the rule that a name is never part of a dotted token it does
 * not fill (mentions.ts nameFits): a token is words joined by single dots or
 * hyphens ("acme.com.evil.io", "Acme-powered").
 */

function word(text: string, i: number): boolean {
  return i >= 0 && i < text.length && IS_WORD[text.charCodeAt(i)] === 1;
}

/** Words joined by single dots or hyphens, around the names of one text: see tokensOf. */
export interface Tokens {
  /** where the token reaching `at` from the left begins */
  left(at: number): number;
  /** where the token going on from `at` ends */
  right(at: number): number;
  /** whether text[l, r) holds a letter or digit, a dot, a letter or digit */
  dotted(l: number, r: number): boolean;
}

function joins(text: string, i: number): boolean {
  return text[i] === '.' || text[i] === '-';
}

/** A walk to the start of the token reaching `l` can go on one character. */
function stepsLeft(text: string, l: number): boolean {
  return word(text, l - 1) || (joins(text, l - 1) && word(text, l - 2));
}

/** A walk to the end of the token going on from `r` can go on one character. */
function stepsRight(text: string, r: number): boolean {
  return word(text, r) || (joins(text, r) && word(text, r + 1));
}

/** Walks up to this long are taken plainly: nearly every name stands in a short token, and nothing is kept for it. */
const SHORT_WALK = 64;

/**
 * Tokens of one text, for nameFits. A walk longer than SHORT_WALK notes, at
 * every offset it passes, where it ended, and stops at an offset already
 * noted; the last token's dot test is kept. So a text that is one long token
 * ("Acme-Acme-Acme-...") is read once, not once a name (16 s for 100,000
 * characters when every name walked the whole token). The walks read the same
 * characters and give the same ends as walking afresh for each name.
 */
export function tokensOf(text: string): Tokens {
  const n = text.length;
  // Offset -> where the walk from it ends, plus one (0: not walked yet). Made on the first long walk.
  let leftOf: Int32Array | null = null;
  let rightOf: Int32Array | null = null;
  let lastL = -1;
  let lastR = -1;
  let lastDotted = false;

  function longLeft(at: number): number {
    leftOf ??= new Int32Array(n + 1);
    let l = at;
    let end = -1;
    while (l > 0) {
      const known = leftOf[l]!;
      if (known !== 0) {
        end = known - 1;
        break;
      }
      if (!stepsLeft(text, l)) break;
      l--;
    }
    if (end < 0) end = l;
    for (let i = at; i >= l; i--) leftOf[i] = end + 1;
    return end;
  }

  function longRight(at: number): number {
    rightOf ??= new Int32Array(n + 1);
    let r = at;
    let end = -1;
    while (r < n) {
      const known = rightOf[r]!;
      if (known !== 0) {
        end = known - 1;
        break;
      }
      if (!stepsRight(text, r)) break;
      r++;
    }
    if (end < 0) end = r;
    for (let i = at; i <= r; i++) rightOf[i] = end + 1;
    return end;
  }

  return {
    left(at) {
      let l = at;
      for (let steps = 0; l > 0 && stepsLeft(text, l); steps++) {
        if (steps === SHORT_WALK) return longLeft(at);
        l--;
      }
      return l;
    },
    right(at) {
      let r = at;
      for (let steps = 0; r < n && stepsRight(text, r); steps++) {
        if (steps === SHORT_WALK) return longRight(at);
        r++;
      }
      return r;
    },
    dotted(l, r) {
      if (l !== lastL || r !== lastR) {
        lastL = l;
        lastR = r;
        lastDotted = /[\p{L}\p{N}]\.[\p{L}\p{N}]/u.test(text.slice(l, r));
      }
      return lastDotted;
    },
  };
}
