/**
 * When a failed delivery is tried again (docs/webhooks.md "Retries"): the
 * configured delays, one per retry (by default Svix's 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 10 h: eight attempts over about a day), each moved by up
 * to 20% either way so receivers that failed together are not retried in
 * one burst. Null once the retries are used up: the delivery is `failed`.
 */

export const JITTER = 0.2;

/** The delay after the `attempts`-th attempt failed (attempts counted from 1), or null when none is left. */
export function retryDelayMs(
  delays: readonly number[],
  attempts: number,
  random: () => number = Math.random,
): number | null {
  const base = delays[attempts - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * What a webhook is disabled for: a 410 at once; else a run of failed
 * attempts (50 in a row) or failures throughout 3 days.
 */
export const DISABLE_AFTER_FAILURES = 50;
export const DISABLE_AFTER_MS = 3 * 24 * 3600 * 1000;
