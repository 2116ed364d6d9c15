import { describe, expect, it } from 'vitest';
import { periodStart } from '../../src/domain/common/periods.ts';
import { defaultDir } from '../../src/domain/prompts/list.ts';

describe('periodStart', () => {
  it.each([
    ['day', '2026-03-01', '2026-03-01'],
    ['week', '2026-11-26', '2026-11-23'],
    ['week', '2026-11-23', '2026-11-23'],
    ['week', '2026-11-29', '2026-11-23'],
    ['week', '2027-01-01', '2026-12-28'],
    ['month', '2026-02-28', '2026-02-01'],
    ['quarter', '2026-03-31', '2026-01-01'],
    ['quarter', '2026-04-01', '2026-04-01'],
    ['quarter', '2026-12-31', '2026-10-01'],
  ] as const)('%s holding %s starts %s', (period, date, start) => {
    expect(periodStart(period, date)).toBe(start);
  });
});

describe('defaultDir', () => {
  it('lists newest first, names A to Z, best rank first, latest scanned first', () => {
    expect(defaultDir('created')).toBe('desc');
    expect(defaultDir('text')).toBe('asc');
    expect(defaultDir('category')).toBe('asc');
    expect(defaultDir('rank')).toBe('asc');
    expect(defaultDir('scanned')).toBe('desc');
  });
});
