import { sql, type RawBuilder } from 'kysely';
import { analyse, type AnswerFacts, type BrandBook, type Correction } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import { prepared, type Executor } from '../../db/database.ts';
import type { AnswerRow } from '../../db/schema.ts';

export type AnswerForAnalysis = Pick<
  AnswerRow,
  'id' | 'month' | 'siteId' | 'promptId' | 'provider' | 'day' | 'text' | 'citations' | 'error'
>;

/**
 * Bumped whenever analysis rules change, so stored facts derived by older
 * rules are never mistaken for current ones (reanalysis skips answers whose
 * facts carry the current analysis version and brand book). 3: facts carry
 * name readings (`name_readings`). 4: everyday-word names are read by a
 * learned model (src/analysis/reader-weights.json), and more names are
 * ambiguous (docs/analysis.md "Everyday-word names, read in context").
 */
export const ANALYSIS_VERSION = 4;

export function factsKey(book: BrandBook): string {
  return `v${ANALYSIS_VERSION}:${book.key}`;
}

/**
 * The key stored with facts: factsKey, except for facts of an answer that
 * could not be read in time, which no current key matches, so the next
 * reanalysis tries that answer again (the limit may have been hit by a
 * loaded machine rather than by the answer).
 */
function storedKey(facts: AnswerFacts, key: string): string {
  return facts.analysis.timedOut ? `${key}:unread` : key;
}

const analysisInput = (answer: Pick<AnswerForAnalysis, 'text' | 'citations' | 'error'>) => ({
  text: answer.text,
  citations: answer.citations,
  failed: answer.error !== null || !answer.text,
});

/** `corrections`: readers' corrections of this answer (mention_feedback), so a re-read never undoes one. */
export function analyseAnswer(
  answer: Pick<AnswerForAnalysis, 'text' | 'citations' | 'error'>,
  book: BrandBook,
  corrections: readonly Correction[] = [],
): AnswerFacts {
  return analyse(analysisInput(answer), book, corrections);
}

/**
 * The same for many answers, on the analysis threads (src/analysis/pool.ts),
 * in order, within the configured time per task: an answer that cannot be
 * read in time gets facts that say so (`analysis.timedOut`), never an error.
 * `corrections[i]` are answer i's.
 */
export function analyseAnswers(
  ctx: AppContext,
  answers: Pick<AnswerForAnalysis, 'text' | 'citations' | 'error'>[],
  book: BrandBook,
  corrections?: readonly (readonly Correction[] | undefined)[],
): Promise<AnswerFacts[]> {
  return ctx
    .analysisPool()
    .analyse(book, answers.map(analysisInput), { timeoutMs: ctx.config.analysis.timeoutMs }, corrections);
}

/** Says which answers could not be read in time: by id, never with their text (an attacker may have written it). */
export function warnUnread(
  ctx: AppContext,
  items: readonly { answerId: number; facts: AnswerFacts }[],
  where: Record<string, number>,
): void {
  for (const { answerId, facts } of items) {
    if (facts.analysis.timedOut)
      ctx.logger.warn(
        { ...where, answerId, timeoutMs: ctx.config.analysis.timeoutMs },
        'answer not analysed within its time limit: stored with facts that say so',
      );
  }
}

/** A fact's own fields as stored (answer_facts' columns but the answer's key and place), for the JSON of factsRows. */
export function factFields(f: AnswerFacts, book: BrandBook) {
  return {
    verdict: f.verdict,
    mentioned: f.mentioned,
    own_cited: f.ownCited,
    brand_rank: f.brandRank,
    brand_position: f.brandPosition,
    brands: f.brands.map(({ name, kind, competitorId, position }) => ({ name, kind, competitorId, position })),
    competitors_named: f.competitorsNamed,
    competitors_cited: f.competitorsCited,
    citations: f.citations,
    tone: f.tone,
    tone_score: f.toneScore,
    quote: f.quote,
    suggestions: f.suggestions,
    brand_key: storedKey(f, factsKey(book)),
    name_readings: f.names,
    read_chars: f.analysis.readChars,
    read_truncated: f.analysis.truncated,
    read_timed_out: f.analysis.timedOut,
  };
}

/** factFields' columns and their types as jsonb_to_recordset reads them (arrays from JSON arrays). */
const FACT_FIELDS = [
  ['verdict', 'text'],
  ['mentioned', 'boolean'],
  ['own_cited', 'boolean'],
  ['brand_rank', 'int'],
  ['brand_position', 'int'],
  ['brands', 'jsonb'],
  ['competitors_named', 'int[]'],
  ['competitors_cited', 'int[]'],
  ['citations', 'jsonb'],
  ['tone', 'text'],
  ['tone_score', 'real'],
  ['quote', 'text'],
  ['suggestions', 'text[]'],
  ['brand_key', 'text'],
  ['name_readings', 'jsonb'],
  ['read_chars', 'int'],
  ['read_truncated', 'boolean'],
  ['read_timed_out', 'boolean'],
] as const;
const FACT_COLUMNS = FACT_FIELDS.map(([c]) => c).join(', ');
const FACT_TYPES = FACT_FIELDS.map(([c, t]) => `${c} ${t}`).join(', ');
const factValues = (alias: string) => FACT_FIELDS.map(([c]) => `${alias}.${c}`).join(', ');

/**
 * Writes (or rewrites) the facts of many answers in one statement. The rows
 * travel as one JSON parameter: Postgres parses one value instead of
 * thousands of bind parameters, which made batched reanalysis several times faster.
 * One text whatever the batch: a prepared statement (see `prepared`).
 */
export async function writeFacts(
  db: Executor,
  items: { answer: AnswerForAnalysis; facts: AnswerFacts }[],
  book: BrandBook,
): Promise<void> {
  if (items.length === 0) return;
  const rows = JSON.stringify(
    items.map(({ answer, facts }) => ({
      answer_id: answer.id,
      month: answer.month,
      site_id: answer.siteId,
      prompt_id: answer.promptId,
      provider: answer.provider,
      day: answer.day,
      ...factFields(facts, book),
    })),
  );
  await prepared(sql`
    INSERT INTO answer_facts (answer_id, month, site_id, prompt_id, provider, day, ${sql.raw(FACT_COLUMNS)})
    SELECT r.answer_id, r.month, r.site_id, r.prompt_id, r.provider, r.day, ${sql.raw(factValues('r'))}
      FROM jsonb_to_recordset(${rows}::jsonb) AS r(answer_id bigint, month date, site_id int, prompt_id int, provider text, day date, ${sql.raw(FACT_TYPES)})
    ON CONFLICT (answer_id, month) DO UPDATE SET ${sql.raw(FACT_FIELDS.map(([c]) => `${c} = excluded.${c}`).join(', '))}`).execute(
    db,
  );
}

/**
 * The facts of answers a statement is inserting, as a data-modifying CTE's
 * statement (storeAnswers): `answers` is the answers' INSERT ... RETURNING
 * (id, month, site_id, prompt_id, provider, sample, scan_id, day), `json`
 * their facts as factFields with the answer's key (scan_id, prompt_id,
 * provider, sample), so an answer the insert skipped (stored already) gets
 * none. Plain inserts: the answers are new. Returns what the rollups read
 * (see `batchRollups`).
 */
export function insertNewFacts(answers: RawBuilder<unknown>, json: string): RawBuilder<unknown> {
  return sql`
    INSERT INTO answer_facts (answer_id, month, site_id, prompt_id, provider, day, ${sql.raw(FACT_COLUMNS)})
    SELECT a.id, a.month, a.site_id, a.prompt_id, a.provider, a.day, ${sql.raw(factValues('r'))}
      FROM ${answers} a
      JOIN jsonb_to_recordset(${json}::jsonb) AS r(scan_id int, prompt_id int, provider text, sample smallint, ${sql.raw(FACT_TYPES)})
        ON r.scan_id = a.scan_id AND r.prompt_id = a.prompt_id AND r.provider = a.provider AND r.sample = a.sample
    RETURNING answer_id, month, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_rank, competitors_named,
              competitors_cited, citations, tone, tone_score, suggestions`;
}
