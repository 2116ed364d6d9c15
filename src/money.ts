/**
 * The one money type: integer micro-dollars (1 USD = 1,000,000). Plain
 * numbers stay exact up to 2^53 micros (about 9 billion USD), far beyond any
 * balance, so no bigint arithmetic is needed; pg's int8 parser is set to number.
 */
export type Micros = number;

export const MICROS_PER_USD = 1_000_000;

export function usdToMicros(usd: number): Micros {
  return Math.round(usd * MICROS_PER_USD);
}

/** USD number rounded to 6 decimals, as responses show money. */
export function microsToUsd(micros: Micros): number {
  return Math.round(micros) / MICROS_PER_USD;
}

/** "$1.23"; amounts under a dollar keep their significant digits ("$0.0045", "$0.012"), as per-answer prices need. */
export function formatUsd(micros: Micros): string {
  const usd = micros / MICROS_PER_USD;
  const sign = usd < 0 ? '-' : '';
  const abs = Math.abs(usd);
  const maximumFractionDigits = abs !== 0 && abs < 1 ? 6 : 2;
  return `${sign}$${abs.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits })}`;
}
