import { sql } from 'kysely';
import type { AnswerFacts, BrandBook } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { CitationJson } from '../../db/schema.ts';
import type { Micros } from '../../money.ts';
import { rawJson } from '../../assistants/truncate.ts';
import { analyseAnswer, warnUnread, writeFacts } from './answer-facts.ts';
import { addToRollups } from './rollups.ts';
import { utcDay } from '../../dates.ts';

export interface NewAnswer {
  scanId: number;
  siteId: number;
  promptId: number;
  /** Which of the scan's asks of this prompt and assistant (1 to 5); 1 when not given. */
  sample?: number;
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
  /** The bundled simulator gave it (shown on the answer). */
  simulated?: boolean;
  /** Facts worked out ahead (the scan's writer analyses each answer as it arrives); analysed here otherwise. */
  facts?: AnswerFacts;
}

export interface StoredAnswer {
  answerId: number;
  facts: AnswerFacts;
}

/**
 * The one way answers enter the database (scans, imports, tests): answers,
 * their facts and rollups in one transaction, for one answer or a batch.
 * Answers are unique per (scan, prompt, provider, sample): storing one twice gives
 * null in its place and changes nothing, so a retried job never counts or
 * charges twice. Money is settled by the caller right after (scan-money.ts),
 * so the rows every reservation locks are never held across an answer write.
 */
export async function storeAnswers(ctx: AppContext, inputs: NewAnswer[], book: BrandBook): Promise<(StoredAnswer | null)[]> {
  if (inputs.length === 0) return [];
  const results = await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx
      .insertInto('answers')
      .values(
        inputs.map((input) => ({
          scanId: input.scanId,
          siteId: input.siteId,
          promptId: input.promptId,
          sample: input.sample ?? 1,
          provider: input.provider,
          model: input.model,
          askedAt: input.askedAt,
          day: utcDay(input.askedAt),
          text: input.text,
          citations: JSON.stringify(input.citations),
          searches: JSON.stringify(input.searches),
          usage: input.usage ? JSON.stringify(input.usage) : null,
          raw: input.raw === undefined ? null : rawJson(input.raw),
          costMicros: input.costMicros,
          error: input.error,
          truncated: input.truncated ?? false,
          simulated: input.simulated ?? false,
          context: input.context,
          // The scan's month, the partition key (docs/decisions.md): every answer of a scan in one partition.
          month: scanMonth(input.scanId),
        })),
      )
      .onConflict((oc) => oc.columns(['scanId', 'promptId', 'provider', 'sample', 'month']).doNothing())
      .returning(['id', 'scanId', 'promptId', 'provider', 'sample', 'month'])
      .execute();
    const keyOf = (a: { scanId: number; promptId: number; provider: string; sample?: number }) => `${a.scanId}|${a.promptId}|${a.provider}|${a.sample ?? 1}`;
    const ids = new Map(rows.map((r) => [keyOf(r), r]));
    const stored = inputs.flatMap((input) => {
      const row = ids.get(keyOf(input));
      if (row === undefined) return [];
      ids.delete(keyOf(input));
      const { id, month } = row;
      const day = utcDay(input.askedAt);
      const answer = { id, month, siteId: input.siteId, promptId: input.promptId, provider: input.provider, day, text: input.text, citations: input.citations, error: input.error };
      return [{ answer, input, answerId: id, facts: input.facts ?? analyseAnswer(answer, book) }];
    });
    await writeFacts(trx, stored, book);
    await addToRollups(
      trx,
      stored.map((s) => ({ id: s.answerId, month: s.answer.month, promptId: s.input.promptId, provider: s.input.provider })),
    );
    // The scan row last: reservations lock it too, so it is held only until commit.
    const counts = new Map<number, { done: number; failed: number }>();
    for (const s of stored) {
      const c = counts.get(s.input.scanId) ?? { done: 0, failed: 0 };
      if (s.facts.verdict === 'failed') c.failed++;
      else c.done++;
      counts.set(s.input.scanId, c);
    }
    for (const [scanId, c] of counts) {
      await trx
        .updateTable('scans')
        .set((eb) => ({ answersDone: eb('answersDone', '+', c.done), answersFailed: eb('answersFailed', '+', c.failed) }))
        .where('id', '=', scanId)
        .execute();
    }
    const byInput = new Map(stored.map((s) => [s.input, { answerId: s.answerId, facts: s.facts }]));
    return inputs.map((input) => byInput.get(input) ?? null);
  });
  inputs.forEach((input, i) => warnUnread(ctx, results[i] ? [results[i]] : [], { scanId: input.scanId, siteId: input.siteId }));
  return results;
}

/** First day of the UTC month a scan was created in, computed by Postgres as the row is inserted (one primary-key look-up). */
const scanMonth = (scanId: number) => sql<string>`(SELECT date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date FROM scans s WHERE s.id = ${scanId})`;

/** One answer: see storeAnswers. */
export async function storeAnswer(ctx: AppContext, input: NewAnswer, book: BrandBook): Promise<StoredAnswer | null> {
  const [stored] = await storeAnswers(ctx, [input], book);
  return stored ?? null;
}
