import type { Correction } from '../../analysis/index.ts';
import type { Executor } from '../../db/database.ts';

/**
 * Readers' corrections of a site's answers, by answer id, as analysis takes
 * them: every path that re-reads stored answers passes an answer's own, so
 * a later reanalysis never undoes one. Corrections are made by people one
 * at a time, so a site's all fit in memory; `answerIds` narrows the read.
 */
export async function correctionsOf(
  db: Executor,
  siteId: number,
  answerIds?: readonly number[],
): Promise<Map<number, Correction[]>> {
  let q = db.selectFrom('mentionFeedback').select(['answerId', 'name', 'mentioned']).where('siteId', '=', siteId);
  if (answerIds !== undefined) q = q.where('answerId', 'in', answerIds.length ? [...answerIds] : [0]);
  const byAnswer = new Map<number, Correction[]>();
  for (const row of await q.orderBy('id').execute()) {
    const list = byAnswer.get(row.answerId) ?? [];
    list.push({ name: row.name, mentioned: row.mentioned });
    byAnswer.set(row.answerId, list);
  }
  return byAnswer;
}
