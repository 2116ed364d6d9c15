import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import { stability, type Stability } from '../../analysis/index.ts';
import { PROVIDER_KEYS, isProviderKey, type ProviderKey } from '../../assistants/catalog.ts';
import type { Db } from '../../db/database.ts';
import type { Verdict } from '../../db/schema.ts';
import { chosenStart, periodWindow, type Period } from '../reports/periods.ts';
import { queryText } from '../common/fields.ts';
import { latestDayWithData } from '../reports/base.ts';
import { utcDay } from '../../dates.ts';

/**
 * Scan results of prompts, read from rollups: each assistant's latest
 * verdict, history squares, stability, and the SQL predicates and sort keys
 * of the prompt list's result filters. Predicates and sort keys refer to the
 * prompts table as `p`.
 */

export const VERDICTS = ['named', 'lost', 'cited', 'missing', 'failed'] as const satisfies readonly Verdict[];
export const STABILITIES = ['held', 'volatile', 'lost'] as const satisfies readonly Stability[];
export const RESULT_SORTS = ['rank', 'scanned'] as const;
export type ResultSort = (typeof RESULT_SORTS)[number];

/** The prompt list's result filters (spec "Prompts and categories"); an empty parameter filters nothing. */
const empty = (v: unknown) => (v === '' ? undefined : v);
export const promptResultFilterSchema = z.object({
  verdict: z.preprocess(empty, z.enum(VERDICTS, { error: `verdict must be one of ${VERDICTS.join(', ')}` }).optional()),
  // Trimmed like the other text filters: a blank name filters nothing, and NUL (which Postgres text cannot hold) is a 422, not a 500.
  competitor: queryText('competitor', 200),
  stability: z.preprocess(empty, z.enum(STABILITIES, { error: `stability must be one of ${STABILITIES.join(', ')}` }).optional()),
  scanned: z.preprocess(empty, z.enum(['yes', 'never'], { error: 'scanned must be yes or never' }).optional()),
});
export type PromptResultFilters = z.output<typeof promptResultFilterSchema>;

export type LatestVerdicts = Record<ProviderKey, Verdict | null>;
export interface HistorySquare {
  start: string;
  verdict: Verdict | null;
}
export interface PromptResults {
  latest: LatestVerdicts;
  history: HistorySquare[];
  stability: Stability | null;
}

/**
 * A period's verdict from a rollup_prompt_period row (`alias`): the best
 * verdict among its answers, cited > named > lost > missing > failed.
 */
export function bestVerdictSql(alias: string): RawBuilder<Verdict> {
  const a = sql.raw(alias);
  return sql<Verdict>`CASE WHEN ${a}.cited > 0 THEN 'cited' WHEN ${a}.named > 0 THEN 'named' WHEN ${a}.lost > 0 THEN 'lost' WHEN ${a}.missing > 0 THEN 'missing' ELSE 'failed' END`;
}

export function noLatest(): LatestVerdicts {
  return Object.fromEntries(PROVIDER_KEYS.map((k) => [k, null])) as LatestVerdicts;
}

/** Each assistant's latest verdict for each prompt; every provider key is present (null: never asked). */
export async function latestVerdicts(db: Db, promptIds: readonly number[]): Promise<Map<number, LatestVerdicts>> {
  const out = new Map<number, LatestVerdicts>(promptIds.map((id) => [id, noLatest()]));
  if (promptIds.length === 0) return out;
  const rows = await db
    .selectFrom('rollupPromptLatest')
    .select(['promptId', 'provider', 'verdict'])
    .where('promptId', 'in', [...promptIds])
    .execute();
  for (const r of rows) {
    const latest = out.get(r.promptId);
    if (latest && isProviderKey(r.provider)) latest[r.provider] = r.verdict;
  }
  return out;
}

/** One square per period of the window ending at `start` (oldest first): the prompt's verdict then, null without answers. */
export async function historySquares(db: Db, siteId: number, promptIds: readonly number[], period: Period, start: string, count?: number): Promise<Map<number, HistorySquare[]>> {
  const window = periodWindow(period, start, count);
  const out = new Map<number, HistorySquare[]>(promptIds.map((id) => [id, window.map((s) => ({ start: s, verdict: null }))]));
  if (promptIds.length === 0) return out;
  const { rows } = await sql<{ promptId: number; start: string; verdict: Verdict }>`
    SELECT r.prompt_id, r.start, ${bestVerdictSql('r')} AS verdict
      FROM rollup_prompt_period r
     WHERE r.prompt_id = ANY(${[...promptIds]}::int[]) AND r.site_id = ${siteId} AND r.period = ${period}
       AND r.start >= ${window[0]} AND r.start <= ${start}`.execute(db);
  const index = new Map(window.map((s, i) => [s, i]));
  for (const r of rows) {
    const square = out.get(r.promptId)?.[index.get(r.start) ?? -1];
    if (square) square.verdict = r.verdict;
  }
  return out;
}

/** Stability over history squares (docs/analysis.md "Metrics"). */
export function stabilityOf(history: readonly HistorySquare[]): Stability | null {
  return stability(history.map((h) => h.verdict));
}

/**
 * The period the list's history squares end with: the one holding `start`
 * when given, else the latest period with data, else the current one.
 */
export async function historyStart(db: Db, siteId: number, period: Period, start: string | undefined, now: Date): Promise<string> {
  if (start) return chosenStart(period, start, null, utcDay(now));
  return chosenStart(period, undefined, await latestDayWithData(db, siteId), utcDay(now));
}

/** `latest`, `history` and `stability` for a page of prompts, in three indexed reads. */
export async function promptResults(db: Db, siteId: number, promptIds: readonly number[], period: Period, start: string): Promise<Map<number, PromptResults>> {
  const [latest, history] = await Promise.all([latestVerdicts(db, promptIds), historySquares(db, siteId, promptIds, period, start)]);
  return new Map(
    promptIds.map((id) => {
      const h = history.get(id) ?? [];
      return [id, { latest: latest.get(id) ?? noLatest(), history: h, stability: stabilityOf(h) }];
    }),
  );
}

/** Prompts one of whose assistants' latest answers has this verdict. */
export function verdictFilter(siteId: number, verdict: Verdict): RawBuilder<SqlBool> {
  return sql<SqlBool>`p.id IN (SELECT l.prompt_id FROM rollup_prompt_latest l WHERE l.site_id = ${siteId} AND l.verdict = ${verdict})`;
}

/** Prompts one of whose assistants' latest answers names the tracked competitor of that name (ignoring case); an unknown name matches nothing. */
export function competitorFilter(siteId: number, name: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`p.id IN (
    SELECT l.prompt_id FROM rollup_prompt_latest l
     WHERE l.site_id = ${siteId}
       AND l.competitors_named && ARRAY(SELECT c.id FROM competitors c WHERE c.site_id = ${siteId} AND lower(c.name) = lower(${name})))`;
}

/**
 * Prompts with this stability over the window of ten periods ending at
 * `start`: the same rule as `stability()` in SQL. Periods whose answers all
 * failed have no data; the latest period with data decides `lost`.
 */
export function stabilityFilter(siteId: number, period: Period, start: string, value: Stability): RawBuilder<SqlBool> {
  const first = periodWindow(period, start)[0];
  return sql<SqlBool>`p.id IN (
    SELECT prompt_id FROM (
      SELECT r.prompt_id,
             CASE WHEN count(*) FILTER (WHERE r.cited + r.named > 0) = 0 THEN NULL
                  WHEN count(*) >= 2 AND bool_and(r.cited + r.named > 0) THEN 'held'
                  WHEN (array_agg(r.cited + r.named > 0 ORDER BY r.start DESC))[1] THEN 'volatile'
                  ELSE 'lost' END AS stability
        FROM rollup_prompt_period r
       WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start >= ${first} AND r.start <= ${start} AND r.answers > r.failed
       GROUP BY r.prompt_id) s
     WHERE s.stability = ${value})`;
}

/**
 * `yes`: asked at least once (any assistant, failed calls included); `never`: not yet.
 * `s.site_id = p.site_id` is implied by the prompt id, but spelled out it lets the planner carry
 * the list's site into the summary read (a site index range) instead of hashing every site's rows.
 */
export function scannedFilter(scanned: 'yes' | 'never'): RawBuilder<SqlBool> {
  const exists = sql`EXISTS (SELECT 1 FROM rollup_prompt_summary s WHERE s.prompt_id = p.id AND s.site_id = p.site_id)`;
  return scanned === 'yes' ? sql<SqlBool>`${exists}` : sql<SqlBool>`NOT ${exists}`;
}

/**
 * Sort keys: `rank` is the mean brand rank over the assistants' latest
 * answers (1 is best; null when none ranks the brand), `scanned` the time
 * the prompt was last asked (null when never). Sort with nulls last.
 */
export function resultSortKey(sort: ResultSort): RawBuilder<unknown> {
  return sort === 'rank'
    ? sql`(SELECT s.brand_rank FROM rollup_prompt_summary s WHERE s.prompt_id = p.id)`
    : sql`(SELECT s.scanned_at FROM rollup_prompt_summary s WHERE s.prompt_id = p.id)`;
}

/** Best rank first; most recently asked first. */
export function resultDefaultDir(sort: ResultSort): 'asc' | 'desc' {
  return sort === 'rank' ? 'asc' : 'desc';
}
