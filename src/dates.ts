/**
 * Calendar helpers in UTC, the only time zone money, schedules and reports
 * use. Days are 'YYYY-MM-DD' strings, as Postgres `date` columns are read.
 */

/** The UTC calendar day of an instant: '2026-11-24'. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The first day of the instant's UTC month, as a day: '2026-11-01' (the key of monthly spend rows). */
export function utcMonthFirstDay(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

/** The instant that starts the UTC month, `monthsBack` months before the instant's. */
export function startOfUtcMonth(at: Date, monthsBack = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - monthsBack, 1));
}

/** The month as shown in usage: '2026-11'. */
export function monthKey(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}
