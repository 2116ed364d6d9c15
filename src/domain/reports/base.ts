import { sql, type RawBuilder } from 'kysely';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import { preparedQuery, type Db } from '../../db/database.ts';
import { latestDayWithData, SITE_DAY_COUNTERS, snakeCase, type SiteDayCounter } from '../facts/index.ts';
import { chosenStart, periodEnd, periodStartSql, type Period, type PeriodQuery, round1 } from '../common/index.ts';
import { utcDay } from '../../dates.ts';

/**
 * What every report shares: the period it shows and the site counters of
 * rollup_site_day summed over days (a quarter is at most 92 days x 6
 * assistants of rows).
 */

export interface ReportPeriod {
  period: Period;
  /** First day of the period shown. */
  start: string;
  /** Its last day. */
  end: string;
}

/**
 * Every period with data, oldest first. Read from the model rollup, the
 * smallest one keyed by period (a few rows per period).
 */
export async function periodsWithData(db: Db, siteId: number, period: Period): Promise<string[]> {
  const rows = await db
    .selectFrom('rollupModelPeriod')
    .select('start')
    .distinct()
    .where('siteId', '=', siteId)
    .where('period', '=', period)
    .orderBy('start')
    .execute();
  return rows.map((r) => r.start);
}

/**
 * The period a report shows: the one holding `start`, else the latest period
 * with data, else the current one. Only the default needs a read, so reports
 * given a start run all their reads at once.
 */
export async function resolvePeriod(ctx: AppContext, siteId: number, query: PeriodQuery): Promise<ReportPeriod> {
  const latestDay = query.start ? null : await latestDayWithData(ctx.db, siteId);
  const start = chosenStart(query.period, query.start, latestDay, utcDay(ctx.clock.now()));
  return { period: query.period, start, end: periodEnd(query.period, start) };
}

/** The part of every report response that echoes the period; `periods` lists every period with data. */
export function periodEcho(p: ReportPeriod, periods: string[]) {
  return { period: p.period, start: p.start, end: p.end, periods };
}

export type SiteCounts = Record<SiteDayCounter, number>;
const COUNTERS = SITE_DAY_COUNTERS;

export function emptyCounts(): SiteCounts {
  return Object.fromEntries(COUNTERS.map((c) => [c, 0])) as SiteCounts;
}

export function addCounts(into: SiteCounts, more: SiteCounts): SiteCounts {
  for (const c of COUNTERS) into[c] += more[c];
  return into;
}

/** `coalesce(sum(counter), 0) AS "counter"` for every site counter of rollup_site_day. */
export const sums = sql.raw(COUNTERS.map((c) => `coalesce(sum(${snakeCase(c)}), 0) AS "${c}"`).join(', '));

/** Site counters per (period start, provider) for the periods from `first` to `last` (starts, inclusive). */
export async function siteCountsByPeriod(
  db: Db,
  siteId: number,
  period: Period,
  first: string,
  last: string,
): Promise<{ start: string; provider: string; counts: SiteCounts }[]> {
  const { rows } = await sql<SiteCounts & { start: string; provider: string }>`
    SELECT ${periodStartSql(period, sql.ref('day'))} AS start, provider, ${sums}
      FROM rollup_site_day
     WHERE site_id = ${siteId} AND day >= ${first} AND day <= ${periodEnd(period, last)}
     GROUP BY 1, provider`.execute(db);
  return rows.map(({ start, provider, ...counts }) => ({ start, provider, counts: counts as SiteCounts }));
}

/**
 * Runs a report statement as a named (prepared) one and answers its first
 * row. Postgres parses it once per pooled connection and, from the sixth call
 * on, keeps its generic plan when that is estimated no dearer than planning
 * each call afresh: a report built of many subqueries costs more to plan than
 * to run. Every call under one name must compile to the same text
 * (node-postgres refuses another), so name each variant apart.
 */
export async function preparedRow<Row extends object>(db: Db, name: string, query: RawBuilder<Row>): Promise<Row> {
  const { sql: text, parameters } = query.compile(db);
  const [row] = await preparedQuery<Row>(db, name, text, [...parameters]);
  if (!row) throw new Error(`statement ${name} returned no row`);
  return row;
}

/**
 * A value of a statement run by preparedRow, written `(SELECT $n::type)`:
 * evaluated once per call like a parameter, but hidden from the planner.
 * Planned for given values, the rollups' statistics (how many rows hold a
 * site or a date, over every period kind) made custom plans look cheaper
 * than the generic one for some periods, so Postgres planned those calls
 * afresh every time. With every value hidden both estimates agree and the
 * generic plan is kept. The period kind, one of four words, is written into
 * the text instead, so statements are named per kind.
 */
export function hidden(value: string | number, type: 'int' | 'date' | 'text'): RawBuilder<unknown> {
  return sql`(SELECT ${value}::${sql.raw(type)})`;
}

/** periodsWithData as a scalar subquery returning a JSON array, for statements run by preparedRow. */
export function periodsJson(siteId: number, period: Period): RawBuilder<string[]> {
  return sql`(SELECT coalesce(json_agg(start ORDER BY start), '[]')
                FROM (SELECT DISTINCT start FROM rollup_model_period WHERE site_id = ${hidden(siteId, 'int')} AND period = ${sql.lit(period)}) s)`;
}

export type CountsRow = SiteCounts & { start: string; provider: string };

/**
 * siteCountsByPeriod(previousStart, start) as a scalar subquery returning a
 * JSON array of rows, for statements run by preparedRow. The window is just
 * the two periods, so a day's period is told by the day alone.
 */
export function periodAndPreviousCountsJson(
  siteId: number,
  p: ReportPeriod,
  previousStart: string,
): RawBuilder<CountsRow[]> {
  return sql`(SELECT coalesce(json_agg(c), '[]') FROM (
                SELECT CASE WHEN day >= ${p.start}::date THEN ${p.start}::date ELSE ${previousStart}::date END AS start, provider, ${sums}
                  FROM rollup_site_day
                 WHERE site_id = ${hidden(siteId, 'int')} AND day >= ${hidden(previousStart, 'date')} AND day <= ${hidden(p.end, 'date')}
                 GROUP BY 1, provider) c)`;
}

/** Headline numbers of a set of answers (CONTRACT.md "Answer analysis"). */
export function headline(c: SiteCounts) {
  const answered = c.answers - c.failed;
  return {
    answers: c.answers,
    answered,
    failed: c.failed,
    mentioned: c.mentioned,
    ownCited: c.ownCited,
    visibility: visibility(c.mentioned, answered),
    brandRank: c.rankCount > 0 ? round1(c.rankSum / c.rankCount) : null,
    shareOfVoice: shareOfVoice(c.mentioned, c.mentioned + c.competitorMentions),
  };
}
export type Headline = ReturnType<typeof headline>;

const diff = (a: number | null, b: number | null) => (a === null || b === null ? null : round1(a - b));

/** Current minus previous; null where either side has no value. */
export function change(current: Headline, previous: Headline) {
  return {
    answers: current.answers - previous.answers,
    mentioned: current.mentioned - previous.mentioned,
    ownCited: current.ownCited - previous.ownCited,
    visibility: diff(current.visibility, previous.visibility),
    brandRank: diff(current.brandRank, previous.brandRank),
    shareOfVoice: diff(current.shareOfVoice, previous.shareOfVoice),
  };
}

/** Percentage to one decimal, null for an empty whole (like visibility). */
export function percentOf(part: number, whole: number): number | null {
  return whole > 0 ? round1((100 * part) / whole) : null;
}
