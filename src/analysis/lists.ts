/**
 * Lines of the answer that present options: numbered items (`1.`, `2)`,
 * `### 1. Name`), bullets (`-`, `*`, `+`, `•`) and table rows. `indent` tells
 * nesting apart: only the outermost level of a list ranks brands.
 */
export interface ListItem {
  kind: 'numbered' | 'bullet' | 'table';
  start: number;
  /** offset where the item's own text begins, after the marker */
  bodyStart: number;
  end: number;
  indent: number;
}

const ITEM_RE = /^([ \t]*)(?:(#{1,6}[ \t]+)?(\d{1,3})[.)]|([-*+•])|(\|))[ \t]+/;

export function findListItems(text: string): ListItem[] {
  const items: ListItem[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    const line = text.slice(lineStart, lineEnd);
    const m = ITEM_RE.exec(line);
    if (m !== null && !/^\s*\|[\s:|-]*$/.test(line)) {
      const indent = (m[1] ?? '').replace(/\t/g, '    ').length;
      const kind = m[3] !== undefined ? 'numbered' : m[4] !== undefined ? 'bullet' : 'table';
      items.push({ kind, start: lineStart, bodyStart: lineStart + m[0].length, end: lineEnd, indent });
    }
    lineStart = lineEnd + 1;
  }
  return items;
}
