/** Calendar helpers in UTC, the only time zone money and schedules use. */
export function startOfUtcMonth(at: Date, monthsBack = 0): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - monthsBack, 1));
}

export function monthKey(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}`;
}
