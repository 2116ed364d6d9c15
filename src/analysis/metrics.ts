import { countChange } from './intervals.ts';
import type { Verdict } from './verdict.ts';

function percent(part: number, whole: number): number {
  return Math.round((1000 * part) / whole) / 10;
}

/**
 * 100 x answers naming the brand / answers that did not fail, to one
 * decimal. Null when no answer succeeded: "no data" is not 0.
 */
export function visibility(mentionedCount: number, answeredCount: number): number | null {
  if (answeredCount <= 0) return null;
  return percent(Math.min(mentionedCount, answeredCount), answeredCount);
}

/**
 * Brand mentions / (brand + tracked competitor mentions), as a percentage
 * to one decimal, counting one per answer per brand. `allBrandMentions`
 * already includes the brand's own. Null when no brand was named at all.
 */
export function shareOfVoice(brandMentions: number, allBrandMentions: number): number | null {
  if (allBrandMentions <= 0) return null;
  return percent(Math.min(brandMentions, allBrandMentions), allBrandMentions);
}

export type Stability = 'held' | 'volatile' | 'lost';

/**
 * Stability of a prompt over the trends window. `periodVerdicts` is one entry
 * per period, oldest first: the prompt's verdict in that period (see
 * bestVerdict) or null when it has no data. A period whose only verdict is
 * `failed` has no data either: a failed call says nothing about the brand.
 * held: named or cited in every period with data, at least two such periods.
 * lost: named or cited in an earlier period, not in the latest with data.
 * volatile: any other mix (one named period alone included).
 * null: never named nor cited.
 */
export function stability(periodVerdicts: readonly (Verdict | null)[]): Stability | null {
  const data = periodVerdicts.filter((v): v is Verdict => v !== null && v !== 'failed');
  const named = data.map((v) => v === 'named' || v === 'cited');
  if (!named.includes(true)) return null;
  if (data.length >= 2 && named.every(Boolean)) return 'held';
  if (named[named.length - 1] === false) return 'lost';
  return 'volatile';
}

/** A period's answers of one prompt: how many named or cited the brand, and how many did not fail. */
export interface PeriodCounts {
  named: number;
  answered: number;
}

export interface StabilityChange {
  /** The latest period with data. */
  named: number;
  answered: number;
  /** The earlier periods with data, summed. */
  earlierNamed: number;
  earlierAnswered: number;
  pValue: number;
  /** The latest period's share of answers naming the brand differs from the earlier ones' by more than noise (Fisher's exact test, p < 0.05). */
  real: boolean;
}

/**
 * Whether the latest period with data departs from the earlier ones, over
 * the same periods `stability` reads (oldest first; a period whose answers
 * all failed has no data). What tells a `lost` that is real from a coin
 * flip, and a `held` whose share slid. Null with fewer than two periods with data.
 */
export function stabilityChange(periods: readonly PeriodCounts[]): StabilityChange | null {
  const data = periods.filter((p) => p.answered > 0);
  const last = data[data.length - 1];
  if (!last || data.length < 2) return null;
  const earlier = data.slice(0, -1);
  const earlierNamed = earlier.reduce((n, p) => n + p.named, 0);
  const earlierAnswered = earlier.reduce((n, p) => n + p.answered, 0);
  const test = countChange({
    named: last.named,
    answered: last.answered,
    previousNamed: earlierNamed,
    previousAnswered: earlierAnswered,
  });
  if (!test) return null;
  return { named: last.named, answered: last.answered, earlierNamed, earlierAnswered, ...test };
}
