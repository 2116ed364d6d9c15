import { sql } from 'kysely';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { RollupSiteDayTable } from '../../db/schema.ts';
import { chosenStart, dayOf, periodEnd, periodStartSql, type Period, type PeriodQuery } from '../periods.ts';

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

export async function latestDayWithData(db: Db, siteId: number): Promise<string | null> {
  const row = await db.selectFrom('rollupSiteDay').select((eb) => eb.fn.max('day').as('day')).where('siteId', '=', siteId).executeTakeFirst();
  return row?.day ?? null;
}

/**
 * Every period with data, oldest first. Read from the model rollup, the
 * smallest one keyed by period (a few rows per period).
 */
export async function periodsWithData(db: Db, siteId: number, period: Period): Promise<string[]> {
  const rows = await db.selectFrom('rollupModelPeriod').select('start').distinct().where('siteId', '=', siteId).where('period', '=', period).orderBy('start').execute();
  return rows.map((r) => r.start);
}

/**
 * The period a report shows: the one holding `start`, else the latest period
 * with data, else the current one. Only the default needs a read, so reports
 * given a start run all their reads at once.
 */
export async function resolvePeriod(ctx: AppContext, siteId: number, query: PeriodQuery): Promise<ReportPeriod> {
  const latestDay = query.start ? null : await latestDayWithData(ctx.db, siteId);
  const start = chosenStart(query.period, query.start, latestDay, dayOf(ctx.clock.now()));
  return { period: query.period, start, end: periodEnd(query.period, start) };
}

/** The part of every report response that echoes the period; `periods` lists every period with data. */
export function periodEcho(p: ReportPeriod, periods: string[]) {
  return { period: p.period, start: p.start, end: p.end, periods };
}

type CounterName = Exclude<keyof RollupSiteDayTable, 'siteId' | 'day' | 'provider'>;
export type SiteCounts = Record<CounterName, number>;

const COUNTERS: CounterName[] = ['answers', 'failed', 'mentioned', 'ownCited', 'rankSum', 'rankCount', 'competitorMentions', 'positive', 'neutral', 'negative', 'toneSum'];

export function emptyCounts(): SiteCounts {
  return Object.fromEntries(COUNTERS.map((c) => [c, 0])) as SiteCounts;
}

export function addCounts(into: SiteCounts, more: SiteCounts): SiteCounts {
  for (const c of COUNTERS) into[c] += more[c];
  return into;
}

/** `coalesce(sum(counter), 0) AS "counter"` for every site counter of rollup_site_day. */
export const sums = sql.raw(COUNTERS.map((c) => `coalesce(sum(${c.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)}), 0) AS "${c}"`).join(', '));

/** Site counters per (period start, provider) for the periods from `first` to `last` (starts, inclusive). */
export async function siteCountsByPeriod(db: Db, siteId: number, period: Period, first: string, last: string): Promise<{ start: string; provider: string; counts: SiteCounts }[]> {
  const { rows } = await sql<SiteCounts & { start: string; provider: string }>`
    SELECT ${periodStartSql(period, sql.ref('day'))} AS start, provider, ${sums}
      FROM rollup_site_day
     WHERE site_id = ${siteId} AND day >= ${first} AND day <= ${periodEnd(period, last)}
     GROUP BY 1, provider`.execute(db);
  return rows.map(({ start, provider, ...counts }) => ({ start, provider, counts: counts as SiteCounts }));
}

export const round1 = (n: number) => Math.round(n * 10) / 10;
export const round3 = (n: number) => Math.round(n * 1000) / 1000;

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
