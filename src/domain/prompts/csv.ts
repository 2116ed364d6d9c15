import { parse, type CsvError } from 'csv-parse/sync';
import type { Funnel, Intent, PromptStatus } from '../../db/schema.ts';
import { ValidationError } from '../../errors.ts';
import { uniqueNames } from '../common/index.ts';
import {
  CATEGORIES_PER_PROMPT,
  FUNNELS,
  INTENTS,
  PROMPT_STATUSES,
  PROMPT_TEXT_MAX,
  PROMPT_TEXT_MIN,
} from './schemas.ts';
import { CATEGORY_NAME_MAX } from '../categories/index.ts';

/**
 * Reading a prompt CSV: pure, no database. Columns are found by header name
 * (CONTRACT.md "Prompts"); every data row becomes either a valid row or a
 * reason, with the file's line number (the header is line 1).
 */

export type ImportField = 'text' | 'categories' | 'intent' | 'funnel' | 'status';

/** Header names (compared trimmed, ignoring case) and the field each one fills. */
export const COLUMN_ALIASES: Readonly<Record<string, ImportField>> = {
  text: 'text',
  prompt: 'text',
  query: 'text',
  keyword: 'text',
  question: 'text',
  category: 'categories',
  categories: 'categories',
  intent: 'intent',
  funnel: 'funnel',
  status: 'status',
};

export type ColumnMap = Partial<Record<ImportField, number>>;

/** Column index of each field; the first column naming a field wins, unknown columns are ignored. */
export function mapColumns(header: readonly string[]): ColumnMap {
  const map: ColumnMap = {};
  header.forEach((cell, index) => {
    const field = COLUMN_ALIASES[cell.trim().toLowerCase()];
    if (field && map[field] === undefined) map[field] = index;
  });
  return map;
}

const WH_WORDS = /\b(what|what's|whats|which|who|whom|whose|where|when|why|how)\b/i;
/** Auxiliaries that open a yes/no question ("is X worth it", "can I ..."). */
const LEADING_AUXILIARY =
  /^(is|are|am|was|were|do|does|did|can|could|should|would|will|shall|may|might|must|has|have|had|isn't|aren't|don't|doesn't|can't|won't)\b/i;

/** A text with no `?` and no question word reads as a search query ("best crm for startups"), not a question. */
export function looksRaw(text: string): boolean {
  const t = text.trim();
  if (t.includes('?')) return false;
  if (WH_WORDS.test(t)) return false;
  return !LEADING_AUXILIARY.test(t);
}

/** Several categories in one cell are separated by `;` or `|`. */
export function splitCategories(cell: string): string[] {
  return uniqueNames(cell.split(/[;|]/));
}

export interface ImportRow {
  line: number;
  text: string;
  /** null: the row leaves this field as it is (or the default for a new prompt). */
  categories: string[] | null;
  intent: Intent | null;
  funnel: Funnel | null;
  status: PromptStatus | null;
}

export interface RowError {
  line: number;
  reason: string;
}

export interface ParsedImport {
  /** Data rows read (blank lines not counted); each is either in `rows` or in `errors`. */
  count: number;
  rows: ImportRow[];
  errors: RowError[];
}

function pick<T extends string>(
  label: string,
  values: readonly T[],
  cell: string | undefined,
): { value: T | null } | { error: string } {
  const v = (cell ?? '').trim().toLowerCase();
  if (!v) return { value: null };
  const found = values.find((x) => x === v);
  return found ? { value: found } : { error: `${label} "${cell?.trim()}" is not one of ${values.join(', ')}` };
}

/** Reads one data record into a row or the reason it cannot be imported. */
export function readRow(record: readonly string[], columns: ColumnMap, line: number): ImportRow | RowError {
  const cell = (field: ImportField) => {
    const index = columns[field];
    return index === undefined ? undefined : record[index];
  };
  const text = (cell('text') ?? '').trim();
  if (!text) return { line, reason: 'text is empty' };
  if (text.length < PROMPT_TEXT_MIN || text.length > PROMPT_TEXT_MAX) {
    return { line, reason: `text needs ${PROMPT_TEXT_MIN} to ${PROMPT_TEXT_MAX} characters (has ${text.length})` };
  }
  const categoryCell = cell('categories');
  const categories = categoryCell === undefined || !categoryCell.trim() ? null : splitCategories(categoryCell);
  if (categories && categories.length > CATEGORIES_PER_PROMPT)
    return { line, reason: `at most ${CATEGORIES_PER_PROMPT} categories per prompt (has ${categories.length})` };
  const long = categories?.find((c) => c.length > CATEGORY_NAME_MAX);
  if (long)
    return { line, reason: `category "${long.slice(0, 40)}..." is longer than ${CATEGORY_NAME_MAX} characters` };
  const intent = pick('intent', INTENTS, cell('intent'));
  if ('error' in intent) return { line, reason: intent.error };
  const funnel = pick('funnel', FUNNELS, cell('funnel'));
  if ('error' in funnel) return { line, reason: funnel.error };
  const status = pick('status', PROMPT_STATUSES, cell('status'));
  if ('error' in status) return { line, reason: status.error };
  return { line, text, categories, intent: intent.value, funnel: funnel.value, status: status.value };
}

/** The header's delimiter: comma unless the header has none and has a tab or semicolon (spreadsheet exports). */
export function detectDelimiter(headerLine: string): string {
  if (headerLine.includes(',')) return ',';
  if (headerLine.includes('\t')) return '\t';
  if (headerLine.includes(';')) return ';';
  return ',';
}

/** Line where a record starts, from the line where it ends and its raw text (which carries skipped blank lines in front). */
export function startLine(endLine: number, raw: string): number {
  const body = raw.replace(/^\n+/, '').replace(/\n$/, '');
  return endLine - (body.match(/\n/g)?.length ?? 0);
}

interface RawRecord {
  record: string[];
  info: { lines: number };
  raw: string;
}

function csvProblem(err: CsvError): string {
  if (err.code === 'CSV_QUOTE_NOT_CLOSED')
    return 'a quoted field is never closed, so the rest of the file could not be read';
  // csv-parse messages name the line where reading stopped, which is not the row's line.
  return `unreadable CSV row (${err.code})`;
}

const blank = (record: readonly string[]) => record.every((c) => !c.trim());

/** Parses the whole file; a file without a usable header is refused (422 on `contents`). */
export function parsePromptCsv(contents: string): ParsedImport {
  // One newline convention, so records split the same whatever the file's origin.
  const text = contents.replace(/\r\n?/g, '\n');
  const headerEnd = text.indexOf('\n');
  const delimiter = detectDelimiter((headerEnd === -1 ? text : text.slice(0, headerEnd)).replace(/^\uFEFF/, ''));
  const errors: RowError[] = [];
  let records: RawRecord[];
  try {
    records = parse(text, {
      bom: true,
      delimiter,
      record_delimiter: '\n',
      info: true,
      raw: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
      on_skip: (err: CsvError | undefined, raw: string | undefined) => {
        if (err) errors.push({ line: startLine(Number(err.lines), raw ?? ''), reason: csvProblem(err) });
        return undefined;
      },
    }) as unknown as RawRecord[];
  } catch (err) {
    throw new ValidationError(
      { contents: `not readable as CSV: ${(err as Error).message}` },
      'The file could not be read as CSV',
    );
  }
  const header = records.find((r) => !blank(r.record));
  if (!header)
    throw new ValidationError(
      { contents: 'no header row: the first line must name the columns (text, category, intent, funnel, status)' },
      'The file has no header row',
    );
  const columns = mapColumns(header.record);
  if (columns.text === undefined) {
    throw new ValidationError(
      {
        contents: `no text column: name one column text, prompt, query, keyword or question (found ${header.record.map((h) => JSON.stringify(h.trim())).join(', ')})`,
      },
      'The file has no text column',
    );
  }
  const rows: ImportRow[] = [];
  let count = errors.length;
  for (const r of records) {
    if (r === header || blank(r.record)) continue;
    count++;
    const row = readRow(r.record, columns, startLine(r.info.lines, r.raw));
    if ('reason' in row) errors.push(row);
    else rows.push(row);
  }
  errors.sort((a, b) => a.line - b.line);
  return { count, rows, errors };
}
