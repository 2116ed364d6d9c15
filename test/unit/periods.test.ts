import { describe, expect, it } from 'vitest';
import {
  addPeriods,
  bucketByPeriod,
  chosenStart,
  isCalendarDate,
  periodEnd,
  periodQuerySchema,
  periodStart,
  periodWindow,
  previousPeriod,
  type Period,
} from '../../src/domain/common/periods.ts';
import { utcDay } from '../../src/dates.ts';

describe('periodStart', () => {
  it.each<[Period, string, string]>([
    ['day', '2026-12-31', '2026-12-31'],
    // ISO weeks start on Monday, and a week crossing the new year belongs to neither year in particular.
    ['week', '2026-11-16', '2026-11-16'],
    ['week', '2026-11-22', '2026-11-16'],
    ['week', '2026-12-31', '2026-12-28'],
    ['week', '2027-01-03', '2026-12-28'],
    ['week', '2027-01-04', '2027-01-04'],
    ['week', '2028-03-01', '2028-02-28'],
    ['month', '2026-01-31', '2026-01-01'],
    ['month', '2028-02-29', '2028-02-01'],
    ['month', '2026-12-31', '2026-12-01'],
    ['quarter', '2026-03-31', '2026-01-01'],
    ['quarter', '2026-04-01', '2026-04-01'],
    ['quarter', '2026-09-30', '2026-07-01'],
    ['quarter', '2026-10-01', '2026-10-01'],
    ['quarter', '2026-12-31', '2026-10-01'],
    ['quarter', '2027-01-01', '2027-01-01'],
  ])('%s of %s starts %s', (period, day, start) => {
    expect(periodStart(period, day)).toBe(start);
  });
});

describe('addPeriods, previousPeriod, periodEnd', () => {
  it('steps across month, quarter and year ends', () => {
    expect(addPeriods('day', '2026-12-31', 1)).toBe('2027-01-01');
    expect(addPeriods('week', '2026-12-28', 1)).toBe('2027-01-04');
    expect(addPeriods('week', '2027-01-04', -2)).toBe('2026-12-21');
    expect(addPeriods('month', '2026-12-01', 1)).toBe('2027-01-01');
    expect(addPeriods('month', '2026-01-01', -1)).toBe('2025-12-01');
    expect(addPeriods('quarter', '2026-10-01', 1)).toBe('2027-01-01');
    expect(addPeriods('quarter', '2026-01-01', -1)).toBe('2025-10-01');
    expect(previousPeriod('week', '2027-01-04')).toBe('2026-12-28');
    expect(previousPeriod('quarter', '2027-01-01')).toBe('2026-10-01');
  });

  it('ends a period the day before the next one starts', () => {
    expect(periodEnd('day', '2026-12-31')).toBe('2026-12-31');
    expect(periodEnd('week', '2026-12-28')).toBe('2027-01-03');
    expect(periodEnd('month', '2028-02-01')).toBe('2028-02-29');
    expect(periodEnd('month', '2026-02-01')).toBe('2026-02-28');
    expect(periodEnd('quarter', '2026-10-01')).toBe('2026-12-31');
    expect(periodEnd('quarter', '2026-01-01')).toBe('2026-03-31');
  });
});

describe('periodWindow', () => {
  it('lists ten periods ending with the given one, oldest first', () => {
    const w = periodWindow('month', '2027-02-01');
    expect(w).toHaveLength(10);
    expect(w[0]).toBe('2026-05-01');
    expect(w.slice(-3)).toEqual(['2026-12-01', '2027-01-01', '2027-02-01']);
    expect(periodWindow('quarter', '2027-01-01', 3)).toEqual(['2026-07-01', '2026-10-01', '2027-01-01']);
  });
});

describe('chosenStart', () => {
  it('takes the given date, else the latest day with data, else today', () => {
    expect(chosenStart('week', '2026-12-31', '2026-06-01', '2027-05-05')).toBe('2026-12-28');
    expect(chosenStart('month', undefined, '2026-06-17', '2027-05-05')).toBe('2026-06-01');
    expect(chosenStart('quarter', undefined, null, '2027-05-05')).toBe('2027-04-01');
  });
});

describe('bucketByPeriod', () => {
  it('groups day rows by the period holding them', () => {
    const rows = [{ day: '2026-12-27' }, { day: '2026-12-28' }, { day: '2027-01-03' }, { day: '2027-01-04' }];
    const weeks = bucketByPeriod('week', rows);
    expect([...weeks.keys()]).toEqual(['2026-12-21', '2026-12-28', '2027-01-04']);
    expect(weeks.get('2026-12-28')).toEqual([{ day: '2026-12-28' }, { day: '2027-01-03' }]);
    expect([...bucketByPeriod('quarter', rows).keys()]).toEqual(['2026-10-01', '2027-01-01']);
  });
});

describe('dates and the period parameters', () => {
  it('knows calendar dates', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-2-1')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
  });

  it('reads an instant as its UTC day', () => {
    expect(utcDay(new Date('2026-12-31T23:59:59.999Z'))).toBe('2026-12-31');
    expect(utcDay(new Date('2027-01-01T00:30:00+01:00'))).toBe('2026-12-31');
  });

  it('defaults to week and refuses a bad period or date with the field named', () => {
    expect(periodQuerySchema.parse({})).toEqual({ period: 'week' });
    expect(periodQuerySchema.parse({ period: 'quarter', start: '2026-05-05' })).toEqual({
      period: 'quarter',
      start: '2026-05-05',
    });
    const bad = periodQuerySchema.safeParse({ period: 'year', start: '2026-02-30' });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['period', 'period must be one of day, week, month, quarter'],
      ['start', 'start is not a calendar date'],
    ]);
    expect(periodQuerySchema.safeParse({ start: '05/05/2026' }).error?.issues[0]?.message).toBe(
      'start must be a date, YYYY-MM-DD',
    );
  });
});
