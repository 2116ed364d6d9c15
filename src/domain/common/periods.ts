import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';

/**
 * Report periods (CONTRACT.md "Names and wire basics"): `day`, `week` (Monday
 * start), `month` and `quarter` (calendar), all in UTC. A period is named by
 * its first day, `YYYY-MM-DD`. Every function here works on those date
 * strings, never on local time.
 */

export const PERIODS = ['day', 'week', 'month', 'quarter'] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = 'week';
/** The trends window, history squares and stability all look at this many periods. */
export const WINDOW_PERIODS = 10;

const DATE_FORMAT = /^\d{4}-\d{2}-\d{2}$/;

/** True for a real calendar date written `YYYY-MM-DD` (no 2026-02-30). */
export function isCalendarDate(value: string): boolean {
  if (!DATE_FORMAT.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** A `YYYY-MM-DD` query or body value; `label` names it in messages. */
export function isoDateSchema(label: string) {
  return z
    .string({ error: `${label} must be a date, YYYY-MM-DD` })
    .regex(DATE_FORMAT, `${label} must be a date, YYYY-MM-DD`)
    .refine(isCalendarDate, `${label} is not a calendar date`);
}

export const periodSchema = z.enum(PERIODS, { error: `period must be one of ${PERIODS.join(', ')}` });

/** The period parameters every report takes (spec "Endpoints"). */
export const periodQuerySchema = z.object({
  period: periodSchema.default(DEFAULT_PERIOD),
  start: isoDateSchema('start').optional(),
});
export type PeriodQuery = z.output<typeof periodQuerySchema>;

function parts(day: string): [number, number, number] {
  return [Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))];
}

function format(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The UTC calendar day of an instant. */

/** First day of the period that holds `day`. */
export function periodStart(period: Period, day: string): string {
  const [y, m, d] = parts(day);
  if (period === 'day') return format(Date.UTC(y, m, d));
  if (period === 'week') {
    const weekday = new Date(Date.UTC(y, m, d)).getUTCDay();
    return format(Date.UTC(y, m, d - ((weekday + 6) % 7)));
  }
  if (period === 'month') return format(Date.UTC(y, m, 1));
  return format(Date.UTC(y, m - (m % 3), 1));
}

/** The start of the period `n` periods after the one starting at `start` (n may be negative). */
export function addPeriods(period: Period, start: string, n: number): string {
  const [y, m, d] = parts(start);
  if (period === 'day') return format(Date.UTC(y, m, d + n));
  if (period === 'week') return format(Date.UTC(y, m, d + 7 * n));
  if (period === 'month') return format(Date.UTC(y, m + n, 1));
  return format(Date.UTC(y, m + 3 * n, 1));
}

export function previousPeriod(period: Period, start: string): string {
  return addPeriods(period, start, -1);
}

/** Last day (inclusive) of the period starting at `start`. */
export function periodEnd(period: Period, start: string): string {
  const [y, m, d] = parts(addPeriods(period, start, 1));
  return format(Date.UTC(y, m, d - 1));
}

/** `count` consecutive period starts ending with `last`, oldest first. */
export function periodWindow(period: Period, last: string, count: number = WINDOW_PERIODS): string[] {
  return Array.from({ length: count }, (_, i) => addPeriods(period, last, i - count + 1));
}

/**
 * The period a report shows: the one holding `start` when given, else the
 * latest period with data, else the current one.
 */
export function chosenStart(
  period: Period,
  given: string | undefined,
  latestDay: string | null,
  today: string,
): string {
  return periodStart(period, given ?? latestDay ?? today);
}

/** Groups day rows into their periods, keyed by period start, in the rows' order. */
export function bucketByPeriod<T extends { day: string }>(period: Period, rows: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const key = periodStart(period, row.day);
    const list = out.get(key);
    if (list) list.push(row);
    else out.set(key, [row]);
  }
  return out;
}

/**
 * SQL for the start of the period holding a `date` column. The cast to
 * `timestamp` (without zone) keeps date_trunc out of the session time zone.
 */
export function periodStartSql(period: Period, column: RawBuilder<unknown>): RawBuilder<string> {
  if (period === 'day') return sql<string>`${column}`;
  return sql<string>`date_trunc(${sql.lit(period)}, ${column}::timestamp)::date`;
}

/**
 * SQL for the position of the period starting at `column` counted from the
 * period starting at `first` (0 for `first` itself), for rows already known
 * to hold period starts.
 */
export function periodIndexSql(period: Period, first: string, column: RawBuilder<unknown>): RawBuilder<number> {
  if (period === 'day') return sql<number>`(${column} - ${first}::date)`;
  if (period === 'week') return sql<number>`((${column} - ${first}::date) / 7)`;
  const months = sql`((extract(year from ${column})::int - ${Number(first.slice(0, 4))}) * 12 + extract(month from ${column})::int - ${Number(first.slice(5, 7))})`;
  return period === 'month' ? sql<number>`${months}` : sql<number>`(${months} / 3)`;
}
