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
    const { answers, citations, raws } = answersJson(inputs);
    const { rows } = await storeBatch(trx, answers, citations, raws, factsJson(items, book));
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
const storeBatch = compiledOnce((answers: string, citations: string, raws: Buffer, facts: string) =>
  prepared(sql`
    WITH batch_answers AS (${insertAnswers(answers, citations, raws)}),
    batch_facts AS (${insertNewFacts(sql`batch_answers`, facts)}),
    ${sql.join(batchRollups(), sql`, `)}
    SELECT id, scan_id, prompt_id, provider, sample, month FROM batch_answers`),
);

/**
 * The answers' INSERT (rows as one jsonb parameter, answersJson's: one value to parse, one
 * statement text whatever the batch's size), returning what their facts and
 * the rollups read. The citations and raw responses, `json` columns, come
 * as two more JSON arrays in the same order, zipped with the rows by ROWS
 * FROM: json_array_elements cuts each array into its elements without
 * decoding their strings, so each is checked once and stored as the text
 * it came in, where inside the jsonb parameter it was parsed and built into
 * jsonb (they are most of an answer's JSON). A raw response that is JSON
 * null is stored as SQL NULL, as before. The month, the partition key, is
 * the scan's (docs/decisions.md): every answer of a scan in one partition.
 * A stored answer (same scan, prompt, assistant and sample) is skipped.
 */
function insertAnswers(json: string, citations: string, raws: Buffer) {
  return sql`
      INSERT INTO answers (scan_id, site_id, prompt_id, sample, provider, model, asked_at, day, text, citations, searches, usage, raw,
                           cost_micros, error, truncated, simulated, context, month)
      SELECT r.scan_id, r.site_id, r.prompt_id, r.sample, r.provider, r.model, r.asked_at, r.day, r.text, r.citations, r.searches, r.usage,
             CASE WHEN json_typeof(r.raw) <> 'null' THEN r.raw END,
             r.cost_micros, r.error, r.truncated, r.simulated, r.context,
             (SELECT date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date FROM scans s WHERE s.id = r.scan_id)
        FROM ROWS FROM (
               jsonb_to_recordset(${json}::jsonb) AS (scan_id int, site_id int, prompt_id int, sample smallint, provider text, model text,
                 asked_at timestamptz, day date, text text, searches jsonb, usage jsonb, cost_micros bigint, error text, truncated boolean,
                 simulated boolean, context text),
               json_array_elements(${citations}::json),
               json_array_elements(${raws}::json))
             AS r(scan_id, site_id, prompt_id, sample, provider, model, asked_at, day, text, searches, usage, cost_micros, error, truncated,
                  simulated, context, citations, raw)
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

const ARRAY_START = Buffer.from('[');
const COMMA = Buffer.from(',');
const NULL = Buffer.from('null');
const ARRAY_END = Buffer.from(']');

/**
 * The answers as one JSON array for jsonb_to_recordset, and their
 * citations and raw responses as two more in the same order (null where an
 * answer has no raw response; see insertAnswers). The raw responses go as
 * bytes: each is already storable JSON (storedRaw, usually the bytes it came
 * as), and a Buffer parameter is sent as it is (binary, which for `json` is
 * the text itself), where a text parameter made the worker decode every raw
 * response, join them into a 300 KB string and encode it to UTF-8 again.
 * The rest is made storable (a NUL or a lone surrogate, which Postgres
 * refuses, becomes U+FFFD; see storable.ts).
 */
function answersJson(inputs: readonly NewAnswer[]): { answers: string; citations: string; raws: Buffer } {
  const rows = inputs.map((input) =>
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
      searches: input.searches,
      usage: input.usage ?? null,
      cost_micros: input.costMicros,
      error: input.error,
      truncated: input.truncated ?? false,
      simulated: input.simulated ?? false,
      context: input.context,
    }),
  );
  const raws: Buffer[] = [ARRAY_START];
  inputs.forEach((input, i) => {
    if (i > 0) raws.push(COMMA);
    raws.push(input.raw === undefined ? NULL : storedRaw(input.raw).bytes);
  });
  raws.push(ARRAY_END);
  return {
    answers: storableJson(`[${rows.join(',')}]`),
    citations: storableJson(JSON.stringify(inputs.map((input) => input.citations))),
    raws: Buffer.concat(raws),
  };
}

/** One answer: see storeAnswers. */
export async function storeAnswer(ctx: AppContext, input: NewAnswer, book: BrandBook): Promise<StoredAnswer | null> {
  const [stored] = await storeAnswers(ctx, [input], book);
  return stored ?? null;
}
