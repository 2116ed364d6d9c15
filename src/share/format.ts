import type { Period } from '../domain/common/index.ts';
import { periodEnd } from '../domain/common/index.ts';

/** How the page writes numbers and periods. Dates are UTC calendar days (`YYYY-MM-DD`) throughout. */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const MONTHS_LONG = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const parts = (day: string) => ({
  y: Number(day.slice(0, 4)),
  m: Number(day.slice(5, 7)) - 1,
  d: Number(day.slice(8, 10)),
});

export function dayLabel(day: string): string {
  const { y, m, d } = parts(day);
  return `${d} ${MONTHS[m]} ${y}`;
}

/** The period as a heading: "2-8 Nov 2026", "November 2026", "Q4 2026". */
export function periodLabel(period: Period, start: string): string {
  const { y, m, d } = parts(start);
  if (period === 'day') return dayLabel(start);
  if (period === 'month') return `${MONTHS_LONG[m]} ${y}`;
  if (period === 'quarter') return `Q${Math.floor(m / 3) + 1} ${y}`;
  const end = parts(periodEnd(period, start));
  if (end.y !== y) return `${d} ${MONTHS[m]} ${y} - ${end.d} ${MONTHS[end.m]} ${end.y}`;
  if (end.m !== m) return `${d} ${MONTHS[m]} - ${end.d} ${MONTHS[end.m]} ${y}`;
  return `${d}-${end.d} ${MONTHS[m]} ${y}`;
}

/** A chart axis label: "2 Nov", "Nov 26", "Q4 26". */
export function shortPeriodLabel(period: Period, start: string): string {
  const { y, m, d } = parts(start);
  if (period === 'month') return `${MONTHS[m]} ${String(y).slice(2)}`;
  if (period === 'quarter') return `Q${Math.floor(m / 3) + 1} ${String(y).slice(2)}`;
  return `${d} ${MONTHS[m]}`;
}

export const percent = (v: number | null): string => (v === null ? '–' : `${v.toFixed(1)}%`);

/** A 95% interval, "35.1–49.0%"; empty when there is none. */
export const range = (low: number | null, high: number | null): string =>
  low === null || high === null ? '' : `${low.toFixed(1)}–${high.toFixed(1)}%`;

export const rank = (v: number | null): string => (v === null ? '–' : v.toFixed(1));

export const count = (n: number): string => n.toLocaleString('en-US');

export const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

/** A change in points, signed; nothing when either side had no value. */
export function points(v: number | null): string {
  if (v === null) return '';
  if (v === 0) return '±0 pts';
  return `${v > 0 ? '+' : '−'}${Math.abs(v).toFixed(1)} pts`;
}

/** Whether a change is good news: a lower rank is better, higher shares are. */
export function trend(v: number | null, lowerIsBetter = false): 'up' | 'down' | 'flat' {
  if (v === null || v === 0) return 'flat';
  return v > 0 !== lowerIsBetter ? 'up' : 'down';
}

export const PERIOD_NAMES: Record<Period, string> = { day: 'Day', week: 'Week', month: 'Month', quarter: 'Quarter' };
