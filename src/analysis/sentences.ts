export interface Span {
  start: number;
  end: number;
}

/** Words whose trailing period does not end a sentence. */
const ABBREVIATIONS = new Set([
  'e.g',
  'i.e',
  'etc',
  'vs',
  'inc',
  'ltd',
  'co',
  'corp',
  'llc',
  'mr',
  'mrs',
  'ms',
  'dr',
  'st',
  'no',
  'approx',
  'est',
  'dept',
  'jr',
  'sr',
  'fig',
  'cf',
  'u.s',
  'u.k',
  'a.m',
  'p.m',
]);

function space(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 0xa0 || Number.isNaN(c);
}

function wordOrDot(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c > 127;
}

/**
 * Sentences end at `.`, `!` or `?` followed by white space (not after an
 * abbreviation, an initial or a list number) and at every line break, since
 * list items and headings are separate statements. `boundaryAt(text, i)`
 * returns the offset just after the boundary that ends at i, or -1.
 */
function boundaryAt(text: string, i: number, from: number): number {
  const c = text.charCodeAt(i);
  if (c === 10) return i + 1;
  if ((c === 46 || c === 33 || c === 63) && space(text.charCodeAt(i + 1))) {
    if (c === 46 && !periodEnds(text, i, from)) return -1;
    return i + 1;
  }
  return -1;
}

/** `from`: the word before the period is not looked for before it (a bounded look, see sentenceAround). */
function periodEnds(text: string, dot: number, from: number): boolean {
  let w = dot;
  while (w > from && wordOrDot(text.charCodeAt(w - 1))) w--;
  const word = text.slice(w, dot);
  if (word === '') return true;
  if (ABBREVIATIONS.has(word.toLowerCase())) return false;
  // An initial ("J. Smith") or a list number at the start of a line ("1. Acme").
  if (word.length === 1 && word >= 'A' && word <= 'Z') return false;
  if (/^\d{1,3}$/.test(word)) {
    let b = w - 1;
    while (b >= 0 && (text[b] === ' ' || text[b] === '\t' || text[b] === '#')) b--;
    if (b < 0 || text[b] === '\n') return false;
  }
  return true;
}

function trim(text: string, start: number, end: number): Span {
  let s = start;
  let e = end;
  while (s < e && space(text.charCodeAt(s))) s++;
  while (e > s && space(text.charCodeAt(e - 1))) e--;
  return { start: s, end: e };
}

/**
 * Whether a sentence ends anywhere in text[from, to): two offsets with none
 * between them are in one sentence. Scans from the end nearer the caller's
 * offset (`fromEnd`) and stops at the first boundary; a period's word is
 * looked for at most 64 characters back, far longer than any abbreviation.
 */
export function breakWithin(text: string, from: number, to: number, fromEnd: boolean): boolean {
  const lo = Math.max(0, from);
  const hi = Math.min(text.length, to);
  const at = (i: number): boolean => {
    const c = text.charCodeAt(i);
    return (c === 10 || c === 46 || c === 33 || c === 63) && boundaryAt(text, i, Math.max(0, i - 64)) >= 0;
  };
  if (fromEnd) {
    for (let i = hi - 1; i >= lo; i--) if (at(i)) return true;
  } else for (let i = lo; i < hi; i++) if (at(i)) return true;
  return false;
}

/** The only characters at which boundaryAt finds a boundary. */
const BOUNDARY_CHAR = /[\n.!?]/g;

/**
 * The sentence containing offset `index`, found by scanning outwards only,
 * within text[from, to): a caller that asks about many offsets bounds each
 * look (reading.ts sentenceNear) without copying the text around it.
 */
export function sentenceAround(text: string, index: number, from = 0, to = text.length): Span {
  let start = from;
  for (let i = index - 1; i >= from; i--) {
    const after = boundaryAt(text, i, from);
    if (after >= 0 && after <= index) {
      start = after;
      break;
    }
  }
  let end = to;
  if (to === text.length) {
    // Forwards, a native search jumps to the next character that can end a sentence.
    BOUNDARY_CHAR.lastIndex = index;
    for (let m = BOUNDARY_CHAR.exec(text); m !== null; m = BOUNDARY_CHAR.exec(text)) {
      const after = boundaryAt(text, m.index, from);
      if (after >= 0) {
        end = text.charCodeAt(m.index) === 10 ? m.index : after;
        break;
      }
    }
  } else {
    // Bounded: a native search could run far past `to`.
    for (let i = index; i < to; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 46 && c !== 33 && c !== 63) continue;
      const after = boundaryAt(text, i, from);
      if (after >= 0) {
        end = c === 10 ? i : after;
        break;
      }
    }
  }
  return trim(text, start, end);
}
