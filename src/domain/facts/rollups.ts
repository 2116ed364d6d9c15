import { sql, type RawBuilder, type Transaction } from 'kysely';
import { prepared, type Executor } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { PERIODS, SITE_TYPES, type Period } from '../common/index.ts';
import {
  PERIOD_TABLES,
  SEARCH_MAX_CHARS,
  SITE_DAY,
  SITE_DAY_COUNTERS,
  siteTypeColumn,
  type RollupTable,
  type SiteDayCounter,
} from './rollup-tables.ts';

type Table = RollupTable;
const TABLES = PERIOD_TABLES;
type TableName = keyof typeof TABLES;

/**
 * The tables keyed by prompt besides rollup_prompt_period: a row of theirs
 * exists for (site, period, start, prompt, ...) only if rollup_prompt_period
 * has that prompt's row for the period, as every path writes both from the
 * same facts in one transaction, rollup_prompt_period first (a batch below,
 * a rebuild and a re-read in TABLES order), and that row counts at least
 * one answer for as long as it exists (rows counting nothing are deleted,
 * and a re-read gives back the answers it takes out). So where the batch's
 * own upsert of rollup_prompt_period made the row, their rows for that
 * prompt and period are new, and are inserted without ON CONFLICT (its
 * look-up and confirmation were a quarter of the rollup statement's cost,
 * about 28 of the 40 rows an answer in the scan bench's new sites). No
 * other transaction can add them meanwhile: it would first wait on the
 * uncommitted row of rollup_prompt_period, and find it there afterwards.
 */
const PROMPT_TABLES: readonly TableName[] = (Object.keys(TABLES) as TableName[]).filter(
  (k) => k !== 'promptPeriod' && TABLES[k].columns.slice(0, TABLES[k].keys).some(([n]) => n === 'prompt_id'),
);

/**
 * Every rollup that reports read, in one module: the site's day rows and the
 * per-period report tables (definitions in ./rollup-tables.ts).
 *
 * Each table has one definition, a set-based statement from answer_facts
 * (and answers, for searches and models) that adds its rows to the table.
 * `batchRollups` runs them over the answers a statement is storing,
 * `rebuildRollups` over a site's every answer after clearing its rows; adding
 * batch by batch must give what a rebuild gives, which
 * test/integration/reports-rollups.test.ts checks table by table. The
 * database computes the rows where the facts already are: computing them in
 * the worker and sending them back as JSON cost the worker a fifth of its
 * time per answer (issue 17).
 *
 * Rows are written in key order: two scans' batches touching the same rows
 * (one prompt, two assistants) then lock them in the same order and wait for
 * each other instead of deadlocking.
 */

/** An answer as stored: the key of its row in answers and answer_facts. */
export interface StoredAnswerKey {
  id: number;
  month: string;
}

/** An answer just stored, with the (prompt, assistant) whose latest row and summary it may change. */
export interface AddedAnswer extends StoredAnswerKey {
  promptId: number;
  provider: string;
}

/**
 * Which facts a rollup statement reads, as a condition on `answer_facts f`:
 * one site's (a rebuild) or one batch's (the answers a transaction just
 * stored; the month list lets Postgres skip the other months' partitions).
 */
export type FactsScope = { siteId: number } | { answers: readonly StoredAnswerKey[] };

function factsWhere(scope: FactsScope): RawBuilder<unknown> {
  if ('siteId' in scope) return sql`f.site_id = ${scope.siteId}`;
  const months = [...new Set(scope.answers.map((a) => a.month))];
  return sql`f.month = ANY(${months}::date[]) AND f.answer_id = ANY(${scope.answers.map((a) => a.id)}::bigint[])`;
}

/**
 * Where the rollup definitions read facts (alias `f`) and, for searches,
 * models and the latest answers, the answers (alias `a`): the tables under
 * `where` (a rebuild, a re-read), or a batch's rows as CTEs of the statement
 * that stores them (batchRollups). `domains` is the same facts' cited
 * domains (domainsOf), already under `where`.
 */
interface FactsSource {
  facts: RawBuilder<unknown>;
  answers: RawBuilder<unknown>;
  domains: RawBuilder<unknown>;
  where: RawBuilder<unknown>;
}

/**
 * A fact's citations as rows (alias `x`: domain, "siteType", "competitorId",
 * "normalizedUrl"), by jsonb_to_recordset: one pass over each citation for
 * the fields a table reads, where one `->>` per field looked each up again.
 */
const citationsOf = (facts: string) =>
  sql.raw(
    `jsonb_to_recordset(${facts}.citations) AS x(domain text, "siteType" text, "competitorId" int, "normalizedUrl" text)`,
  );

/**
 * Per answer of the facts `where` selects in `facts` (alias `f`), each cited
 * domain (not empty) and site type with its citations `n`: what the source
 * tables count, read once for both. Grouped answer by answer (a small
 * aggregate per answer): grouped at once, a rebuild hashed every citation of
 * a site's million answers, and took half as long again.
 */
function domainsOf(facts: RawBuilder<unknown>, where: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`SELECT f.answer_id, f.site_id, f.day, f.prompt_id, f.mentioned, c.domain, c.site_type, c.n
               FROM ${facts} f
              CROSS JOIN LATERAL (SELECT x.domain, x."siteType" AS site_type, count(*)::int AS n FROM ${citationsOf('f')}
                                   WHERE x.domain <> '' GROUP BY 1, 2) c
              WHERE ${where}`;
}

const fromTables = (scope: FactsScope): FactsSource => {
  const where = factsWhere(scope);
  return {
    facts: sql`answer_facts`,
    answers: sql`answers`,
    domains: sql`(${domainsOf(sql`answer_facts`, where)})`,
    where,
  };
};

/**
 * One search as counted, in SQL: runs of spaces made one, spaces trimmed,
 * ASCII letters in lower case (Postgres' Unicode case rules depend on the
 * collation, so only ASCII is folded: lower() under the "C" collation folds
 * ASCII alone), at most SEARCH_MAX_CHARS characters. The regular expression
 * runs only on a search with two spaces in a row: run on every search, it
 * and an ASCII map by translate() were a twentieth of the rollup
 * statement's CPU, for the same keys.
 */
export const searchKeySql = (column: string) => {
  const c = sql.raw(column);
  return sql`left(lower(btrim(CASE WHEN strpos(${c}, '  ') > 0 THEN regexp_replace(${c}, ' +', ' ', 'g') ELSE ${c} END, ' ') COLLATE "C"), ${SEARCH_MAX_CHARS})`;
};

/** A prompt's summary from its rows of rollup_prompt_latest (grouped by prompt and site). */
const SUMMARY_COLUMNS = sql`prompt_id, site_id, max(asked_at), avg(brand_rank), sum(answered), sum(named),
  CASE WHEN sum(answered) > 0 THEN sum(named)::real / sum(answered) END`;

/**
 * Sets the sample counts of the latest rows `where` selects (alias `l`):
 * over the answers of the latest answer's scan to that prompt and
 * assistant, how many were asked, answered (did not fail), and named or
 * cited the brand. Counted from the answers and facts, so every path (a
 * batch, a rebuild, reanalysis) gives the same counts.
 */
async function recountLatest(db: Executor, where: RawBuilder<unknown>): Promise<void> {
  await sql`
    UPDATE rollup_prompt_latest t SET samples = x.samples, answered = x.answered, named = x.named
      FROM (SELECT l.prompt_id, l.provider, count(*)::int AS samples, count(*) FILTER (WHERE f.verdict <> 'failed')::int AS answered,
                   count(*) FILTER (WHERE f.verdict IN ('named', 'cited'))::int AS named
              FROM rollup_prompt_latest l
              JOIN answers a ON a.scan_id = l.scan_id AND a.prompt_id = l.prompt_id AND a.provider = l.provider
              JOIN answer_facts f ON f.answer_id = a.id AND f.month = a.month
             WHERE ${where}
             GROUP BY l.prompt_id, l.provider) x
     WHERE t.prompt_id = x.prompt_id AND t.provider = x.provider
       AND (t.samples, t.answered, t.named) IS DISTINCT FROM (x.samples, x.answered, x.named)`.execute(db);
}

/**
 * recountLatest for the (prompt, assistant) pairs a batch just stored,
 * driven from the pairs: each latest row by its key, then its scan's
 * answers by the unique (scan, prompt, assistant, sample, month) index in
 * that scan's month's partition only. Stated as a join over every latest
 * row and answer, Postgres hashed the whole of both (a batch's recount
 * grew with the answers stored, a seventh of its database time at 10,000).
 */
async function recountPairs(db: Executor, pairs: readonly { promptId: number; provider: string }[]): Promise<void> {
  await prepared(sql`
    UPDATE rollup_prompt_latest t SET samples = c.samples, answered = c.answered, named = c.named
      FROM unnest(${pairs.map((p) => p.promptId)}::int[], ${pairs.map((p) => p.provider)}::text[]) AS p(prompt_id, provider)
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS samples, count(*) FILTER (WHERE f.verdict <> 'failed')::int AS answered,
               count(*) FILTER (WHERE f.verdict IN ('named', 'cited'))::int AS named
          FROM rollup_prompt_latest l
          JOIN answers a ON a.scan_id = l.scan_id AND a.prompt_id = l.prompt_id AND a.provider = l.provider
           AND a.month = (SELECT date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date FROM scans s WHERE s.id = l.scan_id)
          JOIN answer_facts f ON f.answer_id = a.id AND f.month = a.month
         WHERE l.prompt_id = p.prompt_id AND l.provider = p.provider) c
     WHERE t.prompt_id = p.prompt_id AND t.provider = p.provider
       AND (t.samples, t.answered, t.named) IS DISTINCT FROM (c.samples, c.answered, c.named)`).execute(db);
}

/** Each (day) row also counts in its week, month and quarter (the kinds the table keeps). */
function expand(alias: string, kinds: readonly Period[]): RawBuilder<unknown> {
  const d = sql.raw(`${alias}.day`);
  const startOf = (p: Period) => (p === 'day' ? d : sql`date_trunc(${sql.lit(p)}, ${d}::timestamp)::date`);
  const rows = kinds.map((p) => sql`(${sql.lit(p)}::text, ${startOf(p)})`);
  return sql`CROSS JOIN LATERAL (VALUES ${sql.join(rows)}) AS k(period, start)`;
}

/** ON CONFLICT of a counter table: the new rows' counters are added to the ones there. */
function addCounters(table: Table): RawBuilder<unknown> {
  const keys = table.columns.slice(0, table.keys).map(([n]) => n);
  const sets = table.columns.slice(table.keys).map(([n]) => `${n} = t.${n} + excluded.${n}`);
  return sql`ON CONFLICT (${sql.raw(keys.join(', '))}) DO UPDATE SET ${sql.raw(sets.join(', '))}`;
}

/**
 * How a statement changes counters: `1` adds the facts' rows (every path
 * but one), `-1` takes them out again (re-reading single answers,
 * replaceInRollups), then answering the keys it touched.
 */
type Sign = 1 | -1;

/** RETURNING of a statement that takes rows out: each touched row's key, as one JSON array. */
function touchedKeys(table: Table, sign: Sign): RawBuilder<unknown> {
  if (sign === 1) return sql``;
  const keys = table.columns.slice(0, table.keys).map(([n]) => `t.${n}`);
  return sql.raw(`RETURNING jsonb_build_array(${keys.join(', ')}) AS key`);
}

/**
 * A counter table's rows from the per-day rows `perDay` (one SELECT), summed into every period kind it keeps, in no
 * order. Each per-day counter is summed as the column's type (int): sum() of a count (bigint) is numeric, whose
 * additions and conversion back to int were a few percent of the rollup statement, for the same whole numbers.
 */
function perPeriodRows(table: Table, perDay: RawBuilder<unknown>, sign: Sign = 1): RawBuilder<unknown> {
  const rest = table.columns.slice(3, table.keys).map(([n]) => n);
  const sums = table.columns
    .slice(table.keys)
    .map(([n, type]) => `${sign === 1 ? '' : '-'}sum(d.${n}::${type}) AS ${n}`);
  const group = ['d.site_id', 'k.period', 'k.start', ...rest.map((n) => `d.${n}`)].join(', ');
  return sql`SELECT ${sql.raw(group)}, ${sql.raw(sums.join(', '))} FROM (${perDay}) d ${expand('d', table.kinds ?? PERIODS)} GROUP BY ${sql.raw(group)}`;
}

/**
 * Inserts a counter table's rows from `rows` (perPeriodRows' columns, alias
 * `r`, filtered by `where`). `upsert`: a row that is there already gets the
 * counters added, and the rows go in key order: locks are taken in it, so
 * two transactions adding to the same rows wait for each other instead of
 * deadlocking. `false` when the rows are known to be new (batchRollups):
 * each is a plain insert, without the look-up ON CONFLICT makes first and
 * its confirmation record, and no other transaction can hold them, so they
 * are ordered by period only (one period's rows still sit on few pages; the
 * whole key, with its texts, was a tenth of the rollup statement's CPU).
 */
function insertRows(
  table: Table,
  rows: RawBuilder<unknown>,
  options: { where?: RawBuilder<unknown>; upsert: boolean; returning?: RawBuilder<unknown> },
): RawBuilder<unknown> {
  const cols = table.columns.map(([n]) => n).join(', ');
  const order = options.upsert ? table.columns.slice(0, table.keys).map(([n]) => n) : ['period', 'start'];
  return sql`INSERT INTO ${sql.raw(table.name)} AS t (${sql.raw(cols)})
    SELECT ${sql.raw(cols)} FROM ${rows} r ${options.where ? sql`WHERE ${options.where}` : sql``}
     ORDER BY ${sql.raw(order.join(', '))}
    ${options.upsert ? addCounters(table) : sql``} ${options.returning ?? sql``}`;
}

/** Adds to a counter table the per-day rows `d` (one SELECT), summed into every period kind, in key order. */
function addPerPeriod(table: Table, perDay: RawBuilder<unknown>, sign: Sign = 1): RawBuilder<unknown> {
  return insertRows(table, sql`(${perPeriodRows(table, perDay, sign)})`, {
    upsert: true,
    returning: touchedKeys(table, sign),
  });
}

/** How each site-day counter is computed from a day's answer_facts rows. */
const SITE_DAY_SQL: Record<SiteDayCounter, string> = {
  answers: 'count(*)',
  failed: "count(*) FILTER (WHERE verdict = 'failed')",
  mentioned: 'count(*) FILTER (WHERE mentioned)',
  ownCited: 'count(*) FILTER (WHERE own_cited)',
  rankSum: 'coalesce(sum(brand_rank), 0)',
  rankCount: 'count(brand_rank)',
  competitorMentions: 'coalesce(sum(cardinality(competitors_named)), 0)',
  positive: "count(*) FILTER (WHERE tone = 'positive')",
  neutral: "count(*) FILTER (WHERE tone = 'neutral')",
  negative: "count(*) FILTER (WHERE tone = 'negative')",
  toneSum: 'coalesce(sum(tone_score), 0)',
};

function addSiteDays(src: FactsSource, sign: Sign = 1): RawBuilder<unknown> {
  const columns = SITE_DAY.columns.map(([n]) => n).join(', ');
  const values = SITE_DAY_COUNTERS.map((c) => (sign === 1 ? SITE_DAY_SQL[c] : `-(${SITE_DAY_SQL[c]})`)).join(', ');
  return sql`INSERT INTO rollup_site_day AS t (${sql.raw(columns)})
    SELECT f.site_id, f.day, f.provider, ${sql.raw(values)}
      FROM ${src.facts} f WHERE ${src.where}
     GROUP BY f.site_id, f.day, f.provider ORDER BY f.site_id, f.day, f.provider
    ${addCounters(SITE_DAY)} ${touchedKeys(SITE_DAY, sign)}`;
}

/** Each counter table's rows per (site, day, ...) from the facts `where` selects (alias `f`). */
const PER_DAY: Record<TableName, (src: FactsSource) => RawBuilder<unknown>> = {
  promptPeriod: (src) =>
    sql`SELECT f.site_id, f.day, f.prompt_id, count(*) AS answers, count(*) FILTER (WHERE f.verdict = 'failed') AS failed,
               count(*) FILTER (WHERE f.verdict = 'cited') AS cited, count(*) FILTER (WHERE f.verdict = 'named') AS named,
               count(*) FILTER (WHERE f.verdict = 'lost') AS lost, count(*) FILTER (WHERE f.verdict = 'missing') AS missing,
               count(*) FILTER (WHERE f.mentioned) AS mentioned, coalesce(sum(cardinality(f.competitors_named)), 0) AS competitor_mentions,
               coalesce(sum(f.brand_rank), 0) AS rank_sum, count(f.brand_rank) AS rank_count,
               ${sql.raw(SITE_TYPES.map((t) => `sum(c.${siteTypeColumn(t)}) AS ${siteTypeColumn(t)}`).join(', '))}
          FROM ${src.facts} f
         CROSS JOIN LATERAL (SELECT ${sql.raw(SITE_TYPES.map((t) => `count(*) FILTER (WHERE x."siteType" = '${t}')::int AS ${siteTypeColumn(t)}`).join(', '))}
                               FROM ${citationsOf('f')} WHERE x.domain <> '') c
         WHERE ${src.where} GROUP BY f.site_id, f.day, f.prompt_id`,
  promptProvider: (src) =>
    sql`SELECT f.site_id, f.day, f.prompt_id, f.provider, count(*) AS answers, count(*) FILTER (WHERE f.verdict = 'failed') AS failed,
               count(*) FILTER (WHERE f.mentioned) AS mentioned, count(*) FILTER (WHERE f.own_cited) AS own_cited,
               coalesce(sum(cardinality(f.competitors_named)), 0) AS competitor_mentions, count(*) FILTER (WHERE f.tone = 'positive') AS positive,
               count(*) FILTER (WHERE f.tone = 'neutral') AS neutral, count(*) FILTER (WHERE f.tone = 'negative') AS negative
          FROM ${src.facts} f WHERE ${src.where} GROUP BY f.site_id, f.day, f.prompt_id, f.provider`,
  promptProviderCompetitor: (src) =>
    sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.prompt_id, f.provider, count(*) AS mentioned
          FROM ${src.facts} f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) c
         WHERE ${src.where} GROUP BY f.site_id, f.day, c.id, f.prompt_id, f.provider`,
  promptSource: (src) =>
    sql`SELECT d.site_id, d.day, d.domain, d.site_type, d.prompt_id, count(*) AS answers, count(*) FILTER (WHERE d.mentioned) AS names_brand, sum(d.n) AS citations
          FROM ${src.domains} d GROUP BY d.site_id, d.day, d.domain, d.site_type, d.prompt_id`,
  promptCompetitor: (src) =>
    sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.prompt_id, count(*) AS mentioned, count(*) FILTER (WHERE f.mentioned) AS both_named
          FROM ${src.facts} f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) c
         WHERE ${src.where} GROUP BY f.site_id, f.day, c.id, f.prompt_id`,
  competitor: (src) =>
    // competitors_named is in rank order, so the brand is ahead of the competitor in place p when its rank is at most p.
    sql`SELECT f.site_id, f.day, c.id AS competitor_id, f.provider,
               count(*) FILTER (WHERE c.id = ANY (f.competitors_named)) AS mentioned,
               count(*) FILTER (WHERE c.id = ANY (f.competitors_cited)) AS cited,
               count(*) FILTER (WHERE f.mentioned AND c.id = ANY (f.competitors_named)) AS both_named,
               count(*) FILTER (WHERE f.mentioned AND f.brand_rank <= array_position(f.competitors_named, c.id)) AS brand_ahead,
               count(*) FILTER (WHERE f.mentioned AND f.brand_rank > array_position(f.competitors_named, c.id)) AS competitor_ahead
          FROM ${src.facts} f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named || f.competitors_cited) AS id) c
         WHERE ${src.where} GROUP BY f.site_id, f.day, c.id, f.provider`,
  source: (src) =>
    sql`SELECT d.site_id, d.day, d.domain, d.site_type, count(*) AS answers, count(*) FILTER (WHERE d.mentioned) AS names_brand, sum(d.n) AS citations
          FROM ${src.domains} d GROUP BY d.site_id, d.day, d.domain, d.site_type`,
  page: (src) =>
    sql`SELECT f.site_id, f.day, c.competitor_id, c.url, count(*) AS answers
          FROM ${src.facts} f
         CROSS JOIN LATERAL (SELECT DISTINCT CASE WHEN x."siteType" = 'own' THEN 0 ELSE x."competitorId" END AS competitor_id, x."normalizedUrl" AS url
                               FROM ${citationsOf('f')} WHERE x."siteType" = 'own' OR x."competitorId" IS NOT NULL) c
         WHERE ${src.where}
         GROUP BY f.site_id, f.day, c.competitor_id, c.url`,
  ownPagePrompt: (src) =>
    sql`SELECT f.site_id, f.day, c.url, f.prompt_id, f.provider, count(*) AS answers
          FROM ${src.facts} f
         CROSS JOIN LATERAL (SELECT DISTINCT x."normalizedUrl" AS url FROM ${citationsOf('f')} WHERE x."siteType" = 'own') c
         WHERE ${src.where}
         GROUP BY f.site_id, f.day, c.url, f.prompt_id, f.provider`,
  search: (src) =>
    // OFFSET 0 keeps the folding inside the subquery, where Postgres memoizes it per distinct list of searches.
    sql`SELECT q.site_id, q.day, q.prompt_id, q.query, count(*) AS answers
          FROM (SELECT DISTINCT f.answer_id, f.site_id, f.day, f.prompt_id, k.query
                  FROM ${src.facts} f JOIN ${src.answers} a ON a.id = f.answer_id AND a.month = f.month
                 CROSS JOIN LATERAL (SELECT ${searchKeySql('s')} AS query FROM jsonb_array_elements_text(a.searches) AS s OFFSET 0) k
                 WHERE ${src.where} AND k.query <> '') q
         GROUP BY q.site_id, q.day, q.prompt_id, q.query`,
  model: (src) =>
    sql`SELECT f.site_id, f.day, f.provider, a.model, count(*) AS answers
          FROM ${src.facts} f JOIN ${src.answers} a ON a.id = f.answer_id AND a.month = f.month
         WHERE ${src.where} GROUP BY f.site_id, f.day, f.provider, a.model`,
  suggestion: (src) =>
    sql`SELECT f.site_id, f.day, s.name, count(*) AS answers
          FROM ${src.facts} f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.suggestions) AS name) s
         WHERE ${src.where} GROUP BY f.site_id, f.day, s.name`,
};

/**
 * Makes each (prompt, assistant)'s newest answer among the facts `where`
 * selects its latest row, unless the row holds a newer one (an answer
 * imported late may have been asked earlier).
 */
function setLatest(src: FactsSource): RawBuilder<unknown> {
  return sql`INSERT INTO rollup_prompt_latest AS t (prompt_id, provider, site_id, scan_id, answer_id, asked_at, verdict, brand_rank, competitors_named)
    SELECT DISTINCT ON (f.prompt_id, f.provider) f.prompt_id, f.provider, f.site_id, a.scan_id, f.answer_id, a.asked_at, f.verdict, f.brand_rank, f.competitors_named
      FROM ${src.facts} f JOIN ${src.answers} a ON a.id = f.answer_id AND a.month = f.month
     WHERE ${src.where}
     ORDER BY f.prompt_id, f.provider, a.asked_at DESC, f.answer_id DESC
    ON CONFLICT (prompt_id, provider) DO UPDATE SET
      scan_id = excluded.scan_id, answer_id = excluded.answer_id, asked_at = excluded.asked_at, verdict = excluded.verdict,
      brand_rank = excluded.brand_rank, competitors_named = excluded.competitors_named
    WHERE (excluded.asked_at, excluded.answer_id) > (t.asked_at, t.answer_id)`;
}

/** Writes the summaries of the prompts `where` selects (alias-free, on rollup_prompt_latest) from their latest rows. */
async function writeSummaries(db: Executor, where: RawBuilder<unknown>): Promise<void> {
  await prepared(sql`
    INSERT INTO rollup_prompt_summary AS t (prompt_id, site_id, scanned_at, brand_rank, answered, named, consistency)
    SELECT ${SUMMARY_COLUMNS} FROM rollup_prompt_latest
     WHERE ${where} GROUP BY prompt_id, site_id
     ORDER BY prompt_id
    ON CONFLICT (prompt_id) DO UPDATE SET scanned_at = excluded.scanned_at, brand_rank = excluded.brand_rank,
      answered = excluded.answered, named = excluded.named, consistency = excluded.consistency`).execute(db);
}

/**
 * Adds a batch of answers to every rollup, as CTEs of the statement that
 * stores them (storeAnswers): `batch_answers` (the answers' INSERT ...
 * RETURNING id, month, scan_id, asked_at, model, searches) and `batch_facts`
 * (their facts', see insertNewFacts) are CTEs before these, so the batch is
 * read from what those returned, never from the tables. One CTE per counter
 * table and one for the latest answers; the rows of the tables keyed by
 * prompt that are known to be new are inserted plainly (PROMPT_TABLES), the
 * rest added with ON CONFLICT. A statement's CTEs all see the snapshot from
 * before it, so the latest rows' sample counts and the summaries are
 * refreshed by a later statement (refreshLatest). The caller's transaction
 * turns JIT off: the planner's estimates for this statement pass
 * jit_above_cost, and compiling it took Postgres 180 ms for 10 ms of work on
 * 100 answers.
 */
export function batchRollups(): RawBuilder<unknown>[] {
  const src: FactsSource = {
    facts: sql`batch_facts`,
    answers: sql`batch_answers`,
    domains: sql`batch_domains`,
    where: sql`true`,
  };
  return [
    sql`batch_domains AS MATERIALIZED (${domainsOf(sql`batch_facts`, sql`true`)})`,
    sql`site_day AS (${addSiteDays(src)})`,
    // Which (site, period, start, prompt) rows of rollup_prompt_period this batch made: the prompt's first answers in
    // that period (see PROMPT_TABLES). A row counts every answer it was made from, so it is new when it counts only the
    // batch's.
    sql`prompt_rows AS MATERIALIZED (${perPeriodRows(TABLES.promptPeriod, PER_DAY.promptPeriod(src))})`,
    sql`prompt_period AS (${insertRows(TABLES.promptPeriod, sql`prompt_rows`, {
      upsert: true,
      returning: sql`RETURNING site_id, period, start, prompt_id, answers`,
    })})`,
    // The look-ups below are IN lists in a SELECT list, which Postgres runs as hashed subplans: as joins, a generic plan
    // made from its guesses of the rows' numbers chose nested loops over CTEs for some of them (rows x rows).
    sql`fresh AS MATERIALIZED (
      SELECT site_id, period, start, prompt_id FROM (
        SELECT p.site_id, p.period, p.start, p.prompt_id,
               (p.site_id, p.period, p.start, p.prompt_id, p.answers) IN (SELECT site_id, period, start, prompt_id, answers::int FROM prompt_rows) AS made
          FROM prompt_period p OFFSET 0) x
       WHERE made)`,
    ...(Object.keys(TABLES) as TableName[]).flatMap((k) => {
      if (k === 'promptPeriod') return [];
      const rows = perPeriodRows(TABLES[k], PER_DAY[k](src));
      if (!PROMPT_TABLES.includes(k))
        return [sql`${sql.raw(k)} AS (${insertRows(TABLES[k], sql`(${rows})`, { upsert: true })})`];
      return [
        sql`${sql.raw(k)}_rows AS MATERIALIZED (
          SELECT r.*, (r.site_id, r.period, r.start, r.prompt_id) IN (SELECT site_id, period, start, prompt_id FROM fresh) AS is_new FROM (${rows}) r)`,
        sql`${sql.raw(k)}_new AS (${insertRows(TABLES[k], sql.raw(`${k}_rows`), { where: sql`r.is_new`, upsert: false })})`,
        sql`${sql.raw(k)} AS (${insertRows(TABLES[k], sql.raw(`${k}_rows`), { where: sql`NOT r.is_new`, upsert: true })})`,
      ];
    }),
    sql`latest AS (${setLatest(src)})`,
  ];
}

/**
 * After batchRollups' statement, in the same transaction: the sample counts
 * of the (prompt, assistant) latest rows the answers may have changed, and
 * their prompts' summaries.
 */
export async function refreshLatest(db: Executor, answers: readonly AddedAnswer[]): Promise<void> {
  if (answers.length === 0) return;
  await recountPairs(db, [...new Map(answers.map((a) => [`${a.promptId}|${a.provider}`, a])).values()]);
  const promptIds = [...new Set(answers.map((a) => a.promptId))].sort((a, b) => a - b);
  await writeSummaries(db, sql`prompt_id = ANY(${promptIds}::int[])`);
}

/**
 * Re-reads a few stored answers in place (a reader's correction,
 * domain/names/feedback.ts) and keeps every rollup exact: their old facts
 * are taken out of each table that depends on facts (the same definitions,
 * counters negated), `rewrite` writes their new facts, those are added,
 * and rows left counting nothing are deleted, as a rebuild never makes
 * them (every row a definition makes counts at least one answer, mention or
 * citation). The latest rows, their sample counts and the prompts'
 * summaries are refreshed as a rebuild of the `facts` scope does. What
 * this gives equals a rebuild from facts, table by table
 * (test/integration/names.test.ts). Models and searches come from the
 * answers alone and are left as they are. Run in the caller's transaction,
 * under the site's lock.
 */
export async function replaceInRollups(
  db: Executor,
  answers: readonly AddedAnswer[],
  rewrite: () => Promise<void>,
): Promise<void> {
  if (answers.length === 0) return rewrite();
  await sql`SET LOCAL jit = off`.execute(db);
  const src = fromTables({ answers });
  const where = src.where;
  const tables = (Object.keys(TABLES) as TableName[]).filter((k) => !ANSWER_TABLES.includes(k));
  const touched = new Map<Table, unknown[]>();
  const take = async (table: Table, statement: RawBuilder<unknown>) => {
    const { rows } = await sql<{ key: unknown }>`${statement}`.execute(db);
    if (rows.length)
      touched.set(
        table,
        rows.map((r) => r.key),
      );
  };
  await take(SITE_DAY, addSiteDays(src, -1));
  for (const k of tables) await take(TABLES[k], addPerPeriod(TABLES[k], PER_DAY[k](src), -1));
  await rewrite();
  await addSiteDays(src).execute(db);
  for (const k of tables) await addPerPeriod(TABLES[k], PER_DAY[k](src)).execute(db);
  for (const [table, keys] of touched) await deleteEmptyRows(db, table, keys);
  await sql`
    UPDATE rollup_prompt_latest l SET verdict = f.verdict, brand_rank = f.brand_rank, competitors_named = f.competitors_named
      FROM answer_facts f
     WHERE f.answer_id = l.answer_id AND ${where}`.execute(db);
  await recountPairs(db, [...new Map(answers.map((a) => [`${a.promptId}|${a.provider}`, a])).values()]);
  const promptIds = [...new Set(answers.map((a) => a.promptId))].sort((a, b) => a - b);
  await writeSummaries(db, sql`prompt_id = ANY(${promptIds}::int[])`);
}

/** Deletes, among the rows of `keys` (JSON arrays of key values), those whose whole-number counters are all zero. */
async function deleteEmptyRows(db: Executor, table: Table, keys: readonly unknown[]): Promise<void> {
  const keyColumns = table.columns.slice(0, table.keys);
  const fromJson = keyColumns.map(([, type], i) => `(x->>${i})::${type}`).join(', ');
  const empty = table.columns
    .slice(table.keys)
    .filter(([, type]) => type === 'int')
    .map(([n]) => `${n} = 0`)
    .join(' AND ');
  await sql`DELETE FROM ${sql.raw(table.name)}
     WHERE (${sql.raw(keyColumns.map(([n]) => n).join(', '))}) IN (SELECT ${sql.raw(fromJson)} FROM jsonb_array_elements(${JSON.stringify(keys)}::jsonb) x)
       AND ${sql.raw(empty)}`.execute(db);
}

/**
 * What a rebuild recomputes: `all` tables, or only what depends on facts
 * (`facts`, after reanalysis). Models and searches come from the answers
 * alone, and which answer is each assistant's latest does not change when
 * facts are rewritten, so reanalysis keeps those rows and refreshes the
 * latest answers' verdicts in place.
 */
export type RebuildScope = 'all' | 'facts';
const ANSWER_TABLES: readonly TableName[] = ['search', 'model'];

/** Recomputes a site's rollups from its facts, set-based, in the caller's transaction (`scope`: see RebuildScope). */
export async function rebuildRollups(
  trx: Transaction<Database>,
  siteId: number,
  scope: RebuildScope = 'all',
): Promise<void> {
  // The aggregations and sorts below handle a few rows per answer: with the default 4 MB they spill to disk.
  await sql`SET LOCAL work_mem = '128MB'`.execute(trx);
  const src = fromTables({ siteId });
  const rebuilt = (Object.keys(TABLES) as TableName[]).filter((k) => scope === 'all' || !ANSWER_TABLES.includes(k));
  const cleared = [
    SITE_DAY.name,
    ...rebuilt.map((k) => TABLES[k].name),
    ...(scope === 'all' ? ['rollup_prompt_latest'] : []),
    'rollup_prompt_summary',
  ];
  for (const name of cleared) await sql`DELETE FROM ${sql.raw(name)} WHERE site_id = ${siteId}`.execute(trx);
  await addSiteDays(src).execute(trx);
  for (const k of rebuilt) await addPerPeriod(TABLES[k], PER_DAY[k](src)).execute(trx);
  if (scope === 'all') await setLatest(src).execute(trx);
  else {
    await sql`
      UPDATE rollup_prompt_latest l SET verdict = f.verdict, brand_rank = f.brand_rank, competitors_named = f.competitors_named
        FROM answer_facts f
       WHERE f.answer_id = l.answer_id AND l.site_id = ${siteId}`.execute(trx);
  }
  await recountLatest(trx, sql`l.site_id = ${siteId}`);
  await writeSummaries(trx, sql`site_id = ${siteId}`);
}
