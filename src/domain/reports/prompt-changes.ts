import { sql } from 'kysely';
import { countChange } from '../../analysis/index.ts';
import type { Db } from '../../db/database.ts';
import type { Verdict } from '../../db/schema.ts';
import { previousPeriod, type Period } from '../common/index.ts';
import { bestVerdictSql } from '../prompts/index.ts';

export interface PromptChange {
  id: number;
  text: string;
  verdict: Verdict;
  previousVerdict: Verdict;
  /** Answers naming or citing the brand, and answers that did not fail, this period and the one before. */
  named: number;
  answered: number;
  previousNamed: number;
  previousAnswered: number;
  /** Fisher's exact test of the two periods' shares; `real` when p < 0.05 (docs/analysis.md "Real changes"). */
  pValue: number;
  real: boolean;
}

interface ChangeRow {
  id: number;
  text: string;
  verdict: Verdict;
  previousVerdict: Verdict;
  named: number[];
  answered: number[];
}

/**
 * Prompts won and lost between the previous period and this one. A prompt's
 * verdict in a period is its best over all assistants; it is won when the
 * brand went from not named (lost, missing) to named or cited, lost the other
 * way. Only prompts with answers that did not all fail in both periods count.
 * Each carries whether the change is larger than its noise: with one answer
 * per assistant, going from one naming answer of six to none is a coin flip.
 */
export async function promptChanges(
  db: Db,
  siteId: number,
  period: Period,
  start: string,
): Promise<{ won: PromptChange[]; lost: PromptChange[] }> {
  const previous = previousPeriod(period, start);
  // One pass grouping both periods' rows by prompt (a self-join of the two made the planner loop over every pair).
  const { rows } = await sql<ChangeRow>`
    SELECT p.id, p.text, x.verdicts[2] AS verdict, x.verdicts[1] AS previous_verdict, x.named, x.answered
      FROM (SELECT r.prompt_id, array_agg(${bestVerdictSql('r')} ORDER BY r.start) AS verdicts,
                   array_agg(r.cited + r.named ORDER BY r.start) AS named, array_agg(r.answers - r.failed ORDER BY r.start) AS answered
              FROM rollup_prompt_period r
             WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start IN (${previous}, ${start}) AND r.answers > r.failed
             GROUP BY r.prompt_id
            HAVING count(*) = 2) x
      JOIN prompts p ON p.id = x.prompt_id
     WHERE (x.verdicts[2] IN ('cited', 'named')) <> (x.verdicts[1] IN ('cited', 'named'))
     ORDER BY lower(p.text), p.id`.execute(db);
  const changes = rows.map(({ named, answered, ...r }): PromptChange => {
    const counts = {
      named: named[1] ?? 0,
      answered: answered[1] ?? 0,
      previousNamed: named[0] ?? 0,
      previousAnswered: answered[0] ?? 0,
    };
    // Both periods have answers that did not fail (the query's condition), so the test always has two sides.
    const test = countChange(counts) ?? { pValue: 1, real: false };
    return { ...r, ...counts, ...test };
  });
  const isNamed = (v: Verdict) => v === 'cited' || v === 'named';
  return { won: changes.filter((r) => isNamed(r.verdict)), lost: changes.filter((r) => !isNamed(r.verdict)) };
}
