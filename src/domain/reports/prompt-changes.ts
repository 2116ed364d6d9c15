import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Verdict } from '../../db/schema.ts';
import { previousPeriod, type Period } from './periods.ts';
import { bestVerdictSql } from '../prompts/verdicts.ts';

export interface PromptChange {
  id: number;
  text: string;
  verdict: Verdict;
  previousVerdict: Verdict;
}

/**
 * Prompts won and lost between the previous period and this one. A prompt's
 * verdict in a period is its best over all assistants; it is won when the
 * brand went from not named (lost, missing) to named or cited, lost the other
 * way. Only prompts with answers that did not all fail in both periods count.
 */
export async function promptChanges(db: Db, siteId: number, period: Period, start: string): Promise<{ won: PromptChange[]; lost: PromptChange[] }> {
  const previous = previousPeriod(period, start);
  // One pass grouping both periods' rows by prompt (a self-join of the two made the planner loop over every pair).
  const { rows } = await sql<PromptChange>`
    SELECT p.id, p.text, x.verdicts[2] AS verdict, x.verdicts[1] AS previous_verdict
      FROM (SELECT r.prompt_id, array_agg(${bestVerdictSql('r')} ORDER BY r.start) AS verdicts
              FROM rollup_prompt_period r
             WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start IN (${previous}, ${start}) AND r.answers > r.failed
             GROUP BY r.prompt_id
            HAVING count(*) = 2) x
      JOIN prompts p ON p.id = x.prompt_id
     WHERE (x.verdicts[2] IN ('cited', 'named')) <> (x.verdicts[1] IN ('cited', 'named'))
     ORDER BY lower(p.text), p.id`.execute(db);
  const named = (v: Verdict) => v === 'cited' || v === 'named';
  return { won: rows.filter((r) => named(r.verdict)), lost: rows.filter((r) => !named(r.verdict)) };
}
