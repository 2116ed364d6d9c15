import { sql, type RawBuilder, type SqlBool } from 'kysely';
import { z } from 'zod';
import {
  stability,
  stabilityChange,
  type PeriodCounts,
  type Stability,
  type StabilityChange,
} from '../../analysis/index.ts';
import { PROVIDER_KEYS, isProviderKey, type ProviderKey } from '../../assistants/catalog.ts';
import type { Db } from '../../db/database.ts';
import type { Verdict } from '../../db/schema.ts';
import { chosenStart, periodWindow, type Period, queryText } from '../common/index.ts';
import { latestDayWithData } from '../facts/index.ts';
import { utcDay } from '../../dates.ts';

/**
 * Scan results of prompts, read from rollups: each assistant's latest
 * verdict, history squares, stability, and the SQL predicates and sort keys
 * of the prompt list's result filters. Predicates and sort keys refer to the
 * prompts table as `p`.
 */

export const VERDICTS = ['named', 'lost', 'cited', 'missing', 'failed'] as const satisfies readonly Verdict[];
export const STABILITIES = ['held', 'volatile', 'lost'] as const satisfies readonly Stability[];
export const RESULT_SORTS = ['rank', 'scanned', 'consistency'] as const;
/** How the assistants' latest samples of a prompt named the brand (see consistencyFilter). */
export const CONSISTENCIES = ['all', 'some', 'none', 'split'] as const;
export type ConsistencyFilter = (typeof CONSISTENCIES)[number];
export type ResultSort = (typeof RESULT_SORTS)[number];

/** The prompt list's result filters (spec "Prompts and categories"); an empty parameter filters nothing. */
const empty = (v: unknown) => (v === '' ? undefined : v);
export const promptResultFilterSchema = z.object({
  verdict: z.preprocess(empty, z.enum(VERDICTS, { error: `verdict must be one of ${VERDICTS.join(', ')}` }).optional()),
  // Trimmed like the other text filters: a blank name filters nothing, and NUL (which Postgres text cannot hold) is a 422, not a 500.
  competitor: queryText('competitor', 200),
  stability: z.preprocess(
    empty,
    z.enum(STABILITIES, { error: `stability must be one of ${STABILITIES.join(', ')}` }).optional(),
  ),
  scanned: z.preprocess(empty, z.enum(['yes', 'never'], { error: 'scanned must be yes or never' }).optional()),
  consistency: z.preprocess(
    empty,
    z.enum(CONSISTENCIES, { error: `consistency must be one of ${CONSISTENCIES.join(', ')}` }).optional(),
  ),
});
export type PromptResultFilters = z.output<typeof promptResultFilterSchema>;

export type LatestVerdicts = Record<ProviderKey, Verdict | null>;
export interface HistorySquare {
  start: string;
  verdict: Verdict | null;
}
/** One assistant's latest scan of a prompt: samples asked, answered (did not fail), and named or cited the brand ("2 of 3"). */
export interface SampleCounts {
  samples: number;
  answered: number;
  named: number;
}

/** The assistants' latest samples of a prompt: summed, the share naming the brand (percent), and per assistant. */
export interface Consistency {
  named: number;
  answered: number;
  share: number | null;
  providers: Record<ProviderKey, SampleCounts | null>;
}

export interface PromptResults {
  latest: LatestVerdicts;
  history: HistorySquare[];
  stability: Stability | null;
  /** The latest period with data against the earlier ones of the window: whether a `lost` (or a `held`'s share) moved by more than noise. */
  stabilityChange: StabilityChange | null;
  consistency: Consistency | null;
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

export function noSamples(): Record<ProviderKey, SampleCounts | null> {
  return Object.fromEntries(PROVIDER_KEYS.map((k) => [k, null])) as Record<ProviderKey, SampleCounts | null>;
}

/** Percent to one decimal; null for an empty whole. */
const percentOf = (part: number, whole: number) => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : null);

/**
 * Each assistant's latest verdict for each prompt, every provider key
 * present (null: never asked), and how its latest scan's samples named the
 * brand (null: never asked).
 */
export async function latestResults(
  db: Db,
  promptIds: readonly number[],
): Promise<Map<number, { latest: LatestVerdicts; consistency: Consistency | null }>> {
  const out = new Map(promptIds.map((id) => [id, { latest: noLatest(), consistency: null as Consistency | null }]));
  if (promptIds.length === 0) return out;
  const rows = await db
    .selectFrom('rollupPromptLatest')
    .select(['promptId', 'provider', 'verdict', 'samples', 'answered', 'named'])
    .where('promptId', 'in', [...promptIds])
    .execute();
  for (const r of rows) {
    const entry = out.get(r.promptId);
    if (!entry || !isProviderKey(r.provider)) continue;
    entry.latest[r.provider] = r.verdict;
    const c = (entry.consistency ??= { named: 0, answered: 0, share: null, providers: noSamples() });
    c.providers[r.provider] = { samples: r.samples, answered: r.answered, named: r.named };
    c.named += r.named;
    c.answered += r.answered;
  }
  for (const { consistency } of out.values())
    if (consistency) consistency.share = percentOf(consistency.named, consistency.answered);
  return out;
}

/** One square per period of the window ending at `start` (oldest first): the prompt's verdict then, null without answers. */
export async function historySquares(
  db: Db,
  siteId: number,
  promptIds: readonly number[],
  period: Period,
  start: string,
  count?: number,
): Promise<Map<number, HistorySquare[]>> {
  return (await historyWindow(db, siteId, promptIds, period, start, count)).squares;
}

/** historySquares with each period's counts (named or cited, answered) beside them, for stabilityChange. */
export async function historyWindow(
  db: Db,
  siteId: number,
  promptIds: readonly number[],
  period: Period,
  start: string,
  count?: number,
) {
  const window = periodWindow(period, start, count);
  const squares = new Map<number, HistorySquare[]>(
    promptIds.map((id) => [id, window.map((s) => ({ start: s, verdict: null }))]),
  );
  const counts = new Map<number, PeriodCounts[]>(
    promptIds.map((id) => [id, window.map(() => ({ named: 0, answered: 0 }))]),
  );
  if (promptIds.length === 0) return { squares, counts };
  const { rows } = await sql<{ promptId: number; start: string; verdict: Verdict; named: number; answered: number }>`
    SELECT r.prompt_id, r.start, ${bestVerdictSql('r')} AS verdict, r.cited + r.named AS named, r.answers - r.failed AS answered
      FROM rollup_prompt_period r
     WHERE r.prompt_id = ANY(${[...promptIds]}::int[]) AND r.site_id = ${siteId} AND r.period = ${period}
       AND r.start >= ${window[0]} AND r.start <= ${start}`.execute(db);
  const index = new Map(window.map((s, i) => [s, i]));
  for (const r of rows) {
    const i = index.get(r.start) ?? -1;
    const square = squares.get(r.promptId)?.[i];
    if (square) square.verdict = r.verdict;
    const c = counts.get(r.promptId)?.[i];
    if (c) Object.assign(c, { named: r.named, answered: r.answered });
  }
  return { squares, counts };
}

/** Stability over history squares (docs/analysis.md "Metrics"). */
export function stabilityOf(history: readonly HistorySquare[]): Stability | null {
  return stability(history.map((h) => h.verdict));
}

/**
 * The period the list's history squares end with: the one holding `start`
 * when given, else the latest period with data, else the current one.
 */
export async function historyStart(
  db: Db,
  siteId: number,
  period: Period,
  start: string | undefined,
  now: Date,
): Promise<string> {
  if (start) return chosenStart(period, start, null, utcDay(now));
  return chosenStart(period, undefined, await latestDayWithData(db, siteId), utcDay(now));
}

/** `latest`, `history`, `stability` (with its test) and `consistency` for a page of prompts, in two indexed reads. */
export async function promptResults(
  db: Db,
  siteId: number,
  promptIds: readonly number[],
  period: Period,
  start: string,
): Promise<Map<number, PromptResults>> {
  const [latest, history] = await Promise.all([
    latestResults(db, promptIds),
    historyWindow(db, siteId, promptIds, period, start),
  ]);
  return new Map(
    promptIds.map((id) => {
      const h = history.squares.get(id) ?? [];
      const s = stabilityOf(h);
      const l = latest.get(id);
      return [
        id,
        {
          latest: l?.latest ?? noLatest(),
          history: h,
          stability: s,
          stabilityChange: s === null ? null : stabilityChange(history.counts.get(id) ?? []),
          consistency: l?.consistency ?? null,
        },
      ];
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
 * Over the assistants' latest samples (each one's latest scan): `all` named
 * or cited the brand in every answered sample, `none` in none, `some` in
 * some, `split`: some assistant's own samples disagree (named in some, not
 * all). Prompts never answered match none of them.
 */
export function consistencyFilter(siteId: number, value: ConsistencyFilter): RawBuilder<SqlBool> {
  if (value === 'split') {
    return sql<SqlBool>`p.id IN (SELECT l.prompt_id FROM rollup_prompt_latest l WHERE l.site_id = ${siteId} AND l.named > 0 AND l.named < l.answered)`;
  }
  const condition =
    value === 'all'
      ? sql`s.named = s.answered`
      : value === 'none'
        ? sql`s.named = 0`
        : sql`s.named > 0 AND s.named < s.answered`;
  return sql<SqlBool>`EXISTS (SELECT 1 FROM rollup_prompt_summary s WHERE s.prompt_id = p.id AND s.site_id = p.site_id AND s.answered > 0 AND ${condition})`;
}

/**
 * Sort keys: `rank` is the mean brand rank over the assistants' latest
 * answers (1 is best; null when none ranks the brand), `scanned` the time
 * the prompt was last asked (null when never), `consistency` the share of
 * the assistants' latest samples naming or citing the brand (null when none
 * answered). Sort with nulls last.
 */
export function resultSortKey(sort: ResultSort): RawBuilder<unknown> {
  if (sort === 'rank') return sql`(SELECT s.brand_rank FROM rollup_prompt_summary s WHERE s.prompt_id = p.id)`;
  if (sort === 'consistency') return sql`(SELECT s.consistency FROM rollup_prompt_summary s WHERE s.prompt_id = p.id)`;
  return sql`(SELECT s.scanned_at FROM rollup_prompt_summary s WHERE s.prompt_id = p.id)`;
}

/** Best rank first; most recently asked first; most consistently named first. */
export function resultDefaultDir(sort: ResultSort): 'asc' | 'desc' {
  return sort === 'rank' ? 'asc' : 'desc';
}
