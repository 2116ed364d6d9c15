export type Verdict = 'failed' | 'cited' | 'named' | 'lost' | 'missing';

/**
 * CONTRACT.md: failed (no answer), else cited (own page linked), else named
 * (brand mentioned), else lost (a tracked competitor mentioned), else missing.
 */
export function verdictOf(facts: {
  failed: boolean;
  ownCited: boolean;
  mentioned: boolean;
  competitorNamed: boolean;
}): Verdict {
  if (facts.failed) return 'failed';
  if (facts.ownCited) return 'cited';
  if (facts.mentioned) return 'named';
  if (facts.competitorNamed) return 'lost';
  return 'missing';
}

const STRENGTH: Record<Verdict, number> = { failed: 0, missing: 1, lost: 2, named: 3, cited: 4 };

/**
 * The verdict of a prompt over several answers (one period, several
 * assistants): the best one, cited > named > lost > missing > failed.
 * Null when there is no answer at all.
 */
export function bestVerdict(verdicts: readonly Verdict[]): Verdict | null {
  let best: Verdict | null = null;
  for (const v of verdicts) if (best === null || STRENGTH[v] > STRENGTH[best]) best = v;
  return best;
}
