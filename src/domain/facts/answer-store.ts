import { sql } from 'kysely';
import type { AnswerFacts, BrandBook } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { CitationJson } from '../../db/schema.ts';
import type { Micros } from '../../money.ts';
import { storedRaw } from '../../assistants/truncate.ts';
import { storableJson } from '../../assistants/storable.ts';
import { compiledOnce, prepared } from '../../db/database.ts';
import { analyseAnswer, factFields, insertNewFacts, warnUnread } from './answer-facts.ts';
import { batchRollups, refreshLatest } from './rollups.ts';
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
  /** The provider's JSON: parsed, or already as stored (StoredRaw, assistants/truncate.ts). */
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
 * charges twice. Money is settled by the caller right after (scans/purse.ts),
 * so the rows every reservation locks are never held across an answer write.
 */
export async function storeAnswers(
  ctx: AppContext,
  inputs: NewAnswer[],
  book: BrandBook,
): Promise<(StoredAnswer | null)[]> {
  if (inputs.length === 0) return [];
  // Facts first (the analysis needs an answer's text and citations only): they go into the answers' statement.
  const items = inputs.map((input) => ({ input, facts: input.facts ?? analyseAnswer(input, book) }));
  const results = await ctx.db.transaction().execute(async (trx) => {
    /*
     * For this short transaction: its statements run as prepared ones with
     * one generic plan each (see `prepared`), whatever values a batch brings.
     * A generic plan is kept for the connection's life, and one made while a
     * month's partition was nearly empty chose sequential scans of it, which
     * cost more every batch as the month filled (a scan's database time per
     * answer grew tenfold): every read here is by key, so no sequential scan.
     * And no JIT, whose compilation of the rollup statement (fourteen inserts
     * over set-returning functions) cost Postgres 180 ms for 10 ms of work.
     */
    await sql`SELECT set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)`.execute(
      trx,
    );
    const { rows } = await storeBatch(trx, answersJson(inputs), factsJson(items, book));
    const keyOf = (a: { scanId: number; promptId: number; provider: string; sample?: number }) =>
      `${a.scanId}|${a.promptId}|${a.provider}|${a.sample ?? 1}`;
    const ids = new Map((rows as InsertedAnswer[]).map((r) => [keyOf(r), r]));
    const stored = items.flatMap(({ input, facts }) => {
      const row = ids.get(keyOf(input));
      if (row === undefined) return [];
      ids.delete(keyOf(input));
      return [{ input, facts, answerId: row.id, month: row.month }];
    });
    await refreshLatest(
      trx,
      stored.map((s) => ({ id: s.answerId, month: s.month, promptId: s.input.promptId, provider: s.input.provider })),
    );
    // The scan row last: reservations lock it too, so it is held only until commit.
    const counts = new Map<number, { done: number; failed: number }>();
    for (const s of stored) {
      const c = counts.get(s.input.scanId) ?? { done: 0, failed: 0 };
      if (s.facts.verdict === 'failed') c.failed++;
      else c.done++;
      counts.set(s.input.scanId, c);
    }
    for (const [scanId, c] of counts)
      await prepared(
        sql`UPDATE scans SET answers_done = answers_done + ${c.done}, answers_failed = answers_failed + ${c.failed} WHERE id = ${scanId}`,
      ).execute(trx);
    const byInput = new Map(stored.map((s) => [s.input, { answerId: s.answerId, facts: s.facts }]));
    return inputs.map((input) => byInput.get(input) ?? null);
  });
  inputs.forEach((input, i) =>
    warnUnread(ctx, results[i] ? [results[i]] : [], { scanId: input.scanId, siteId: input.siteId }),
  );
  return results;
}

/**
 * The answers, their facts and every rollup in one statement: each CTE reads
 * what the one before returned, so no row is read back from a table (see
 * batchRollups). Its text is the same for every batch: built and compiled
 * once (compiledOnce), prepared on each connection.
 */
const storeBatch = compiledOnce((answers: Buffer, facts: string) =>
  prepared(sql`
    WITH batch_answers AS (${insertAnswers(answers)}),
    batch_facts AS (${insertNewFacts(sql`batch_answers`, facts)}),
    ${sql.join(batchRollups(), sql`, `)}
    SELECT id, scan_id, prompt_id, provider, sample, month FROM batch_answers`),
);

/**
 * The answers' INSERT (rows as one jsonb parameter, answersJson's: one value to parse, one
 * statement text whatever the batch's size), returning what their facts and
 * the rollups read. The month, the partition key, is the scan's
 * (docs/decisions.md): every answer of a scan in one partition. A stored
 * answer (same scan, prompt, assistant and sample) is skipped.
 */
function insertAnswers(json: Buffer) {
  return sql`
      INSERT INTO answers (scan_id, site_id, prompt_id, sample, provider, model, asked_at, day, text, citations, searches, usage, raw,
                           cost_micros, error, truncated, simulated, context, month)
      SELECT r.scan_id, r.site_id, r.prompt_id, r.sample, r.provider, r.model, r.asked_at, r.day, r.text, r.citations, r.searches, r.usage, r.raw,
             r.cost_micros, r.error, r.truncated, r.simulated, r.context,
             (SELECT date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date FROM scans s WHERE s.id = r.scan_id)
        FROM jsonb_to_recordset(${json}::jsonb) AS r(scan_id int, site_id int, prompt_id int, sample smallint, provider text, model text,
             asked_at timestamptz, day date, text text, citations jsonb, searches jsonb, usage jsonb, raw jsonb, cost_micros bigint, error text,
             truncated boolean, simulated boolean, context text)
      ON CONFLICT (scan_id, prompt_id, provider, sample, month) DO NOTHING
      RETURNING id, month, scan_id, site_id, prompt_id, provider, sample, day, asked_at, model, searches`;
}

/** The facts as insertNewFacts reads them: each with its answer's key. */
function factsJson(items: readonly { input: NewAnswer; facts: AnswerFacts }[], book: BrandBook): string {
  return JSON.stringify(
    items.map(({ input, facts }) => ({
      scan_id: input.scanId,
      prompt_id: input.promptId,
      provider: input.provider,
      sample: input.sample ?? 1,
      ...factFields(facts, book),
    })),
  );
}

interface InsertedAnswer {
  id: number;
  scanId: number;
  promptId: number;
  provider: string;
  sample: number;
  month: string;
}

/** jsonb's binary input (what a Buffer parameter is sent as): a version byte, 1, then the JSON text. */
const JSONB_HEAD = Buffer.from([1, 0x5b]); // 1 and "["
const COMMA = Buffer.from(',');
const RAW_END = Buffer.from('}');
const ARRAY_END = Buffer.from(']');

/**
 * The answers as one JSON array for jsonb_to_recordset, as the UTF-8 bytes
 * of jsonb's binary input (a Buffer parameter is sent in binary; the
 * statement's `::jsonb` makes it jsonb's). The raw response is already
 * storable JSON bytes (storedRaw, usually the bytes it came as) and goes in
 * as it is: a text parameter made the worker encode every answer's raw
 * response to UTF-8 again, and join it into a 300 KB string first (in all,
 * 25 µs an answer of a 3 KB response, against 8 µs). The rest is made
 * storable as a whole (a NUL or a lone surrogate, which Postgres refuses,
 * becomes U+FFFD; see storable.ts).
 */
function answersJson(inputs: readonly NewAnswer[]): Buffer {
  const parts: Buffer[] = [JSONB_HEAD];
  inputs.forEach((input, i) => {
    if (i > 0) parts.push(COMMA);
    const row = storableJson(
      JSON.stringify({
        scan_id: input.scanId,
        site_id: input.siteId,
        prompt_id: input.promptId,
        sample: input.sample ?? 1,
        provider: input.provider,
        model: input.model,
        asked_at: input.askedAt,
        day: utcDay(input.askedAt),
        text: input.text,
        citations: input.citations,
        searches: input.searches,
        usage: input.usage ?? null,
        cost_micros: input.costMicros,
        error: input.error,
        truncated: input.truncated ?? false,
        simulated: input.simulated ?? false,
        context: input.context,
      }),
    );
    if (input.raw === undefined) parts.push(Buffer.from(row, 'utf8'));
    else parts.push(Buffer.from(`${row.slice(0, -1)},"raw":`, 'utf8'), storedRaw(input.raw).bytes, RAW_END);
  });
  parts.push(ARRAY_END);
  return Buffer.concat(parts);
}

/** One answer: see storeAnswers. */
export async function storeAnswer(ctx: AppContext, input: NewAnswer, book: BrandBook): Promise<StoredAnswer | null> {
  const [stored] = await storeAnswers(ctx, [input], book);
  return stored ?? null;
}
