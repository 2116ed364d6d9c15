import { lineStarts } from './lines.ts';

/**
 * Lists written on one line: "Top options: 1. Foo 2. Bar", "1) Foo 2) Bar",
 * "(1) Foo, (2) Bar and (3) Baz", "a) Foo b) Bar", "(a) Foo (b) Bar".
 * A marker counts only in a run of at least two of one style on one line
 * whose values follow each other from 1 (or a), so prices ("$1.5"), versions
 * ("v2.1") and a lone "Step 1) ..." in prose are not lists.
 */
export interface InlineItem {
  start: number;
  bodyStart: number;
  end: number;
}

/**
 * One marker: a number or a letter with its punctuation, after the line
 * start, a space, `:` or `;` (so not "v2.1" nor "$1.5"), before spaces and a
 * word. Groups: 1 `N.`, 2 `N)`, 3 `(N)`, 4 `x)`, 5 `(x)`.
 */
const MARKER = /(?<=^|[\s:;])(?:(\d{1,2})\.|(\d{1,2})\)|\((\d{1,2})\)|([a-zA-Z])\)|\(([a-zA-Z])\))(?=[ \t]+[^\s\d])/g;
const SENTENCE_END = /[.!?](?=\s|$)|;/g;
/** Letters count from 1 like numbers; capitals from 101, so "a) b)" and "A) B)" are runs but "a) B)" is not. */
const CAPITALS = 100;

interface Marker {
  style: number;
  value: number;
  start: number;
  end: number;
}

/** Items of every run in the text, in text order. */
export function findInlineItems(text: string): InlineItem[] {
  const items: InlineItem[] = [];
  // Made when a run needs it: most answers have none.
  let sentenceEnd: ((from: number, lineEnd: number) => number) | null = null;
  for (const lineStart of candidateLines(text)) {
    const lineEnd = endOfLine(text, lineStart);
    const markers = markersIn(text, lineStart, lineEnd);
    let i = 0;
    while (i < markers.length) {
      let j = i + 1;
      while (j < markers.length && follows(markers[j - 1]!, markers[j]!)) j++;
      if (j - i >= 2 && markers[i]!.value % CAPITALS === 1) {
        for (let k = i; k < j; k++) {
          const m = markers[k]!;
          items.push({
            start: m.start,
            bodyStart: m.end,
            end: k + 1 < j ? markers[k + 1]!.start : (sentenceEnd ??= sentenceEnds(text))(m.end, lineEnd),
          });
        }
        i = j;
      } else {
        i++;
      }
    }
  }
  return items;
}

/**
 * Starts of the lines holding what every run holds, a second marker after a
 * space ("2." "2)" "(2)" "b)" "(b)"), in text order, each once. Found from
 * the rare "2" and ")" by native single-character search, which measured
 * several times faster than a regular expression or a search for each marker;
 * a numbered line's own "2." at the line start is no second marker.
 */
function candidateLines(text: string): number[] {
  const starts = new Set<number>();
  let lineOf = lineStarts(text);
  for (let at = text.indexOf('2'); at >= 0; at = text.indexOf('2', at + 1)) {
    const next = text[at + 1];
    if ((next === '.' || next === ')') && spaceBefore(text, at)) starts.add(lineOf(at));
  }
  lineOf = lineStarts(text);
  for (let at = text.indexOf(')'); at >= 0; at = text.indexOf(')', at + 1)) {
    const letter = text[at - 1];
    if ((letter === 'b' || letter === 'B') && spaceBefore(text, at - 1)) starts.add(lineOf(at));
  }
  return [...starts].sort((a, b) => a - b);
}

/** A space or tab before `at`, or before the "(" there ("(2)"). */
function spaceBefore(text: string, at: number): boolean {
  const c = text[at - 1] === '(' ? text[at - 2] : text[at - 1];
  return c === ' ' || c === '\t';
}

function follows(a: Marker, b: Marker): boolean {
  return b.style === a.style && b.value === a.value + 1;
}

function markersIn(text: string, lineStart: number, lineEnd: number): Marker[] {
  const line = text.slice(lineStart, lineEnd);
  const out: Marker[] = [];
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(line); m !== null; m = MARKER.exec(line)) {
    const style = m.findIndex((g, k) => k > 0 && g !== undefined);
    const raw = m[style] ?? '';
    const value =
      style >= 4 ? raw.toLowerCase().charCodeAt(0) - 96 + (raw === raw.toLowerCase() ? 0 : CAPITALS) : Number(raw);
    let end = lineStart + m.index + m[0].length;
    while (text[end] === ' ' || text[end] === '\t') end++;
    out.push({ style, value, start: lineStart + m.index, end });
  }
  return out;
}

function endOfLine(text: string, from: number): number {
  const at = text.indexOf('\n', from);
  return at < 0 ? text.length : at;
}

/**
 * The last item of a run ends with its sentence (or the line). Asked with
 * increasing offsets, so the next sentence end found is kept while it is
 * still ahead: searched afresh for each run, a text of many runs and no
 * sentence end read the rest of the text once per run.
 */
function sentenceEnds(text: string): (from: number, lineEnd: number) => number {
  let searchedFrom = -1;
  let found = -1;
  return (from, lineEnd) => {
    if (from < searchedFrom || (found >= 0 && from > found)) searchedFrom = -1;
    if (searchedFrom < 0) {
      SENTENCE_END.lastIndex = from;
      found = SENTENCE_END.exec(text)?.index ?? -1;
      searchedFrom = from;
    }
    return found < 0 || found >= lineEnd ? lineEnd : found + 1;
  };
}
