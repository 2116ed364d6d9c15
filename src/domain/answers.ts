import type { Transaction } from 'kysely';
import type { AnswerFacts, BrandBook } from '../analysis/index.ts';
import type { AppContext } from '../context.ts';
import type { CitationJson, Database } from '../db/schema.ts';
import type { Micros } from '../money.ts';
import { analyseAnswer, writeFacts } from './facts.ts';
import { addToRollups } from './rollups.ts';

export interface NewAnswer {
  scanId: number;
  siteId: number;
  promptId: number;
  provider: string;
  model: string;
  askedAt: Date;
  text: string | null;
  citations: CitationJson[];
  searches: string[];
  usage?: Record<string, unknown> | null;
  raw?: unknown;
  costMicros: Micros;
  error: string | null;
  truncated?: boolean;
  context: string | null;
}

export interface StoredAnswer {
  answerId: number;
  facts: AnswerFacts;
}

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

/**
 * The one way an answer enters the database (scans, imports, tests): the
 * answer, its facts and its rollups in one transaction. Answers are unique
 * per (scan, prompt, provider): storing one twice returns null and changes
 * nothing, so a retried job never counts or charges twice. `alsoInTransaction`
 * lets the caller settle money in the same transaction.
 */
export async function storeAnswer(
  ctx: AppContext,
  input: NewAnswer,
  book: BrandBook,
  alsoInTransaction?: (trx: Transaction<Database>, stored: StoredAnswer) => Promise<void>,
): Promise<StoredAnswer | null> {
  return ctx.db.transaction().execute(async (trx) => {
    const day = utcDay(input.askedAt);
    const row = await trx
      .insertInto('answers')
      .values({
        scanId: input.scanId,
        siteId: input.siteId,
        promptId: input.promptId,
        provider: input.provider,
        model: input.model,
        askedAt: input.askedAt,
        day,
        text: input.text,
        citations: JSON.stringify(input.citations),
        searches: JSON.stringify(input.searches),
        usage: input.usage ? JSON.stringify(input.usage) : null,
        raw: input.raw === undefined ? null : JSON.stringify(input.raw),
        costMicros: input.costMicros,
        error: input.error,
        truncated: input.truncated ?? false,
        context: input.context,
      })
      .onConflict((oc) => oc.columns(['scanId', 'promptId', 'provider']).doNothing())
      .returning(['id'])
      .executeTakeFirst();
    if (!row) return null;
    const answer = { id: row.id, siteId: input.siteId, promptId: input.promptId, provider: input.provider, day, text: input.text, citations: input.citations, error: input.error };
    const facts = analyseAnswer(answer, book);
    await writeFacts(trx, [{ answer, facts }], book);
    await addToRollups(trx, [{ siteId: input.siteId, day, provider: input.provider, facts }]);
    const stored = { answerId: row.id, facts };
    // Money rows are locked org, site month, scan (the order reservations use), so the
    // scan's counters are updated last: taking the scan row earlier deadlocks with reservations.
    if (alsoInTransaction) await alsoInTransaction(trx, stored);
    const failed = facts.verdict === 'failed';
    await trx
      .updateTable('scans')
      .set((eb) => (failed ? { answersFailed: eb('answersFailed', '+', 1) } : { answersDone: eb('answersDone', '+', 1) }))
      .where('id', '=', input.scanId)
      .execute();
    return stored;
  });
}
