import { findInlineItems } from './inline-lists.ts';

/**
 * Parts of the answer that present options: numbered items (`1.`, `2)`,
 * `### 1. Name`), bullets (`-`, `*`, `+`, `•`), table rows, and lists written
 * on one line (`1. Foo 2. Bar`, `(a) Foo (b) Bar`: inline-lists.ts), which
 * are numbered items. `indent` tells nesting apart: only the outermost level
 * of a list ranks brands; a list written inside an item is nested in it.
 */
export interface ListItem {
  kind: 'numbered' | 'bullet' | 'table';
  start: number;
  /** offset where the item's own text begins, after the marker */
  bodyStart: number;
  end: number;
  indent: number;
  /** the number in a table's rank column ("| 1 | Foo |"), else null */
  rank: number | null;
}

/**
 * Matched in place at each line start (sticky) instead of on a copy of the
 * line: no part of it matches a line break, so it never reads past the line.
 */
const ITEM_RE = /([ \t]*)(?:(#{1,6}[ \t]+)?(\d{1,3})[.)]|([-*+•])|(\|))[ \t]+/y;
/** A table's header separator row (`|---|:-:|`), which is not an item. */
const TABLE_RULE = /^\s*\|[\s:|-]*$/;
/**
 * A rank in a table's first cell: "1", "#1", "1.", "1st", "**1**". Written
 * `[ \t*_]*(?:#[ \t]*)?` rather than `[ \t*_]*#?[ \t]*`, which matches the
 * same cells but could share a run of spaces between its two halves in every
 * way: a row of "|" and 100,000 spaces took 7 s.
 */
export const RANK_CELL = /^\|[ \t*_]*(?:#[ \t]*)?(\d{1,3})(?:\.|st|nd|rd|th)?[ \t*_]*\|/;

export function findListItems(text: string): ListItem[] {
  const items: ListItem[] = [];
  let table: TableBlock | null = null;
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd < 0) lineEnd = text.length;
    ITEM_RE.lastIndex = lineStart;
    const m = ITEM_RE.exec(text);
    if (m?.[5] !== undefined || (m === null && tableRule(text, lineStart))) {
      // Only a line led by "|" can be a table row or rule, so only those lines are copied out.
      const line = text.slice(lineStart, lineEnd).trim();
      table ??= { firstItem: items.length, rule: false };
      if (TABLE_RULE.test(line)) ruleRow(table, items);
      else
        items.push({
          kind: 'table',
          start: lineStart,
          bodyStart: lineStart + (m?.[0].length ?? 0),
          end: lineEnd,
          indent: indentWidth(m?.[1] ?? ''),
          rank: rankCell(line),
        });
    } else {
      if (table !== null) endTable(table, items);
      table = null;
      if (m !== null)
        items.push({
          kind: m[3] !== undefined ? 'numbered' : 'bullet',
          start: lineStart,
          bodyStart: lineStart + m[0].length,
          end: lineEnd,
          indent: indentWidth(m[1] ?? ''),
          rank: null,
        });
    }
    lineStart = lineEnd + 1;
  }
  if (table !== null) endTable(table, items);
  return withInlineItems(text, items);
}

/** The rows of one table so far: items from `firstItem` on. */
interface TableBlock {
  firstItem: number;
  rule: boolean;
}

function rankCell(line: string): number | null {
  const rank = RANK_CELL.exec(line)?.[1];
  return rank === undefined ? null : Number(rank);
}

/** The one row above a table's rule names columns, not options: it is no item. */
function ruleRow(table: TableBlock, items: ListItem[]): void {
  if (table.rule) return;
  table.rule = true;
  if (items.length === table.firstItem + 1) items.pop();
}

/**
 * A table's rows keep the ranks of their first cells only when every row
 * has one (at least two rows), so a table sorted by another column still
 * ranks by its rank column; otherwise no row carries a rank.
 */
function endTable(table: TableBlock, items: ListItem[]): void {
  const rows = items.slice(table.firstItem);
  if (rows.length >= 2 && rows.every((r) => r.rank !== null)) return;
  for (const r of rows) r.rank = null;
}

/**
 * Merges the one-line lists into the line items, in text order. A line that
 * is itself an item ("1. Foo 2. Bar") and whose run starts at its own marker
 * becomes the run's items; a run inside another item is nested one level
 * deeper than that item.
 */
function withInlineItems(text: string, lineItems: ListItem[]): ListItem[] {
  const inline = findInlineItems(text);
  if (inline.length === 0) return lineItems;
  const out: ListItem[] = [];
  let k = 0;
  for (const item of lineItems) {
    const runs: ListItem[] = [];
    let ownMarker = false;
    while (k < inline.length && inline[k]!.start < item.end) {
      const x = inline[k++]!;
      if (x.start < item.start) {
        out.push({ kind: 'numbered', ...x, indent: 0, rank: null });
        continue;
      }
      if (x.start < item.bodyStart) ownMarker = true;
      runs.push({ kind: 'numbered', ...x, indent: ownMarker ? item.indent : item.indent + 1, rank: null });
    }
    if (!ownMarker) out.push(item);
    // A loop, not push(...runs): a line may hold thousands of one-line items, past what a call takes as arguments.
    for (const r of runs) out.push(r);
  }
  while (k < inline.length) out.push({ kind: 'numbered', ...inline[k++]!, indent: 0, rank: null });
  return out;
}

/** A line led by "|" then "-" or ":" ("|---|"), which ITEM_RE does not take (no space after the bar). */
function tableRule(text: string, lineStart: number): boolean {
  let i = lineStart;
  while (text[i] === ' ' || text[i] === '\t') i++;
  return text[i] === '|' && (text[i + 1] === '-' || text[i + 1] === ':');
}

/** Width of a run of spaces and tabs, a tab counting four. */
function indentWidth(lead: string): number {
  let width = 0;
  for (let i = 0; i < lead.length; i++) width += lead.charCodeAt(i) === 9 ? 4 : 1;
  return width;
}
