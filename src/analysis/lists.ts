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

/**
 * Matched in place at each line start (sticky) instead of on a copy of the
 * line: no part of it matches a line break, so it never reads past the line.
 */
const ITEM_RE = /([ \t]*)(?:(#{1,6}[ \t]+)?(\d{1,3})[.)]|([-*+•])|(\|))[ \t]+/y;
/** A table's header separator row (`|---|:-:|`), which is not an item. */
const TABLE_RULE = /^\s*\|[\s:|-]*$/;

export function findListItems(text: string): ListItem[] {
  const items: ListItem[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    ITEM_RE.lastIndex = lineStart;
    const m = ITEM_RE.exec(text);
    // Only a line led by "|" can be a table rule, so only those lines are copied out.
    if (m !== null && !(m[5] !== undefined && TABLE_RULE.test(text.slice(lineStart, lineEnd)))) {
      const indent = indentWidth(m[1] ?? '');
      const kind = m[3] !== undefined ? 'numbered' : m[4] !== undefined ? 'bullet' : 'table';
      items.push({ kind, start: lineStart, bodyStart: lineStart + m[0].length, end: lineEnd, indent });
    }
    lineStart = lineEnd + 1;
  }
  return items;
}

/** Width of a run of spaces and tabs, a tab counting four. */
function indentWidth(lead: string): number {
  let width = 0;
  for (let i = 0; i < lead.length; i++) width += lead.charCodeAt(i) === 9 ? 4 : 1;
  return width;
}
