/**
 * Start of the line holding an offset, for a text whose offsets are asked
 * about mostly in increasing order: the line found last is kept until an
 * offset falls outside it, so a line holding thousands of names or markers is
 * searched back once, not once each (`lastIndexOf` per offset made a single
 * 100,000-character line quadratic).
 */
export function lineStarts(text: string): (at: number) => number {
  let start = 0;
  let end = -1;
  return (at) => {
    if (at >= end || at < start) {
      start = text.lastIndexOf('\n', at) + 1;
      const next = text.indexOf('\n', at);
      end = next < 0 ? text.length : next;
    }
    return start;
  };
}

/**
 * A list marker at a line's start, with the white space before it:
 * `^\s*(?:\d{1,3}[.)]|[-*+•])` of the rule's `^\s*(?:\d{1,3}[.)]|[-*+•])\s+$`,
 * read once per line (Lines.listHead) instead of on the line's text up to
 * each name, which read a long indent once a name.
 */
const LIST_MARKER = /[^\S\n]*(?:\d{1,3}[.)]|[-*+•])/y;
const LINE_SPACE = /[^\S\n]*/y;

/** Lines of one text, for mentions.ts marked: see linesOf. */
export interface Lines {
  startOf(at: number): number;
  /** Whether text[lineStart, at) is a list marker and white space, nothing else. */
  listHead(lineStart: number, at: number): boolean;
}

/**
 * Names are asked about in text order, so the line last found is kept with
 * where its marker and the white space after it end: names on one line cost
 * nothing more than the line. A marker's white space and digits cannot be
 * parsed two ways, so `at` heads the item exactly when it falls after the
 * marker and within the space that follows it.
 */
export function linesOf(text: string): Lines {
  const startOf = lineStarts(text);
  let line = -1;
  let marker = -1;
  let space = -1;
  return {
    startOf,
    listHead(lineStart, at) {
      if (lineStart !== line) {
        line = lineStart;
        LIST_MARKER.lastIndex = lineStart;
        marker = LIST_MARKER.test(text) ? LIST_MARKER.lastIndex : -1;
        space = -1;
        if (marker >= 0) {
          LINE_SPACE.lastIndex = marker;
          LINE_SPACE.test(text);
          space = LINE_SPACE.lastIndex;
        }
      }
      return marker >= 0 && at > marker && at <= space;
    },
  };
}
