import { describe, expect, it } from 'vitest';
import { formatUsd, microsToUsd, usdToMicros } from '../../src/money.ts';

describe('money', () => {
  it('converts USD to integer micros without float drift', () => {
    expect(usdToMicros(0.1 + 0.2)).toBe(300_000);
    expect(usdToMicros(12.345678)).toBe(12_345_678);
  });
  it('shows micros as USD rounded to 6 decimals', () => {
    expect(microsToUsd(1_234_567)).toBe(1.234567);
  });
  it('formats dollars with cents and sub-cent amounts with their digits', () => {
    expect(formatUsd(1_230_000)).toBe('$1.23');
    expect(formatUsd(1_234_567_890)).toBe('$1,234.57');
    expect(formatUsd(4_500)).toBe('$0.0045');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(12_000)).toBe('$0.012');
    expect(formatUsd(500_000)).toBe('$0.50');
  });
});
