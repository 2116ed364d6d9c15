import { sql, type Kysely } from 'kysely';

/**
 * Rollups behind the reports and the prompt list. Besides the per-day tables
 * of 0500, these are keyed by (period, start) for each period kind: one
 * answer adds to its day, week, month and quarter rows, so a report reads the
 * rows of the periods it shows and nothing else. Tables whose keys repeat day
 * after day (per prompt, per search, per page) would otherwise make a quarter
 * cost ninety days of rows. Counters are updated in place with every answer:
 * pages keep room for the new row versions (fillfactor 70), so the updates
 * stay HOT and a period's rows stay on the same pages. Kept current in the
 * transaction that writes facts, rebuilt from facts by reanalysis
 * (src/domain/reports/rollups.ts).
 *
 * The per-period tables have no foreign keys: the key checks on every row
 * took about a third of the time reanalysis spends rebuilding them, and cost
 * every scan batch too. Rows of a deleted prompt stay until the next rebuild,
 * like its answers in the per-day site rollups; reports join prompts, so they
 * never show them. Whatever deletes a site must delete its rows here. The two
 * small per-prompt tables (latest answers, summary) keep their keys.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    -- Per prompt: verdict counts, so a period's verdict is the best one present.
    CREATE TABLE rollup_prompt_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      prompt_id integer NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      cited integer NOT NULL DEFAULT 0,
      named integer NOT NULL DEFAULT 0,
      lost integer NOT NULL DEFAULT 0,
      missing integer NOT NULL DEFAULT 0,
      mentioned integer NOT NULL DEFAULT 0,
      competitor_mentions integer NOT NULL DEFAULT 0,
      rank_sum integer NOT NULL DEFAULT 0,
      rank_count integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, prompt_id)
    ) WITH (fillfactor = 70);
    -- History squares of one page of prompts.
    CREATE INDEX rollup_prompt_period_prompt_idx ON rollup_prompt_period (prompt_id, period, start);

    -- Per prompt and competitor: answers naming the competitor, and naming both.
    CREATE TABLE rollup_prompt_competitor_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      competitor_id integer NOT NULL,
      prompt_id integer NOT NULL,
      mentioned integer NOT NULL DEFAULT 0,
      both_named integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, competitor_id, prompt_id)
    ) WITH (fillfactor = 70);

    -- Per competitor and provider, with head-to-head counts (answers naming both, who ranks first).
    CREATE TABLE rollup_competitor_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      competitor_id integer NOT NULL,
      provider text NOT NULL,
      mentioned integer NOT NULL DEFAULT 0,
      cited integer NOT NULL DEFAULT 0,
      both_named integer NOT NULL DEFAULT 0,
      brand_ahead integer NOT NULL DEFAULT 0,
      competitor_ahead integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, competitor_id, provider)
    ) WITH (fillfactor = 70);

    -- Per cited domain: answers citing it, of those naming the brand, and links.
    CREATE TABLE rollup_source_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      domain text NOT NULL,
      site_type text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      names_brand integer NOT NULL DEFAULT 0,
      citations integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, domain, site_type)
    ) WITH (fillfactor = 70);

    -- Per cited page of the brand (competitor_id 0) or of a tracked competitor.
    CREATE TABLE rollup_page_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      competitor_id integer NOT NULL,
      url text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, competitor_id, url)
    ) WITH (fillfactor = 70);

    -- Which prompts and assistants link to each of the brand's own pages.
    CREATE TABLE rollup_own_page_prompt_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      url text NOT NULL,
      prompt_id integer NOT NULL,
      provider text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, url, prompt_id, provider)
    ) WITH (fillfactor = 70);

    -- Web searches the assistants ran, per prompt (the report keeps active prompts only).
    CREATE TABLE rollup_search_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      prompt_id integer NOT NULL,
      query text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, prompt_id, query)
    ) WITH (fillfactor = 70);

    -- Which models answered: where each assistant's answers were read from (report scope).
    CREATE TABLE rollup_model_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      provider text NOT NULL,
      model text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, provider, model)
    ) WITH (fillfactor = 70);

    -- Untracked brand-like names, by exact spelling; grouped ignoring case when read.
    CREATE TABLE rollup_suggestion_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('day', 'week', 'month', 'quarter')),
      start date NOT NULL,
      name text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, name)
    ) WITH (fillfactor = 70);

    -- Each assistant's latest answer to each prompt: the prompt list's verdict columns and filters.
    CREATE TABLE rollup_prompt_latest (
      prompt_id integer NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      answer_id bigint NOT NULL,
      asked_at timestamptz NOT NULL,
      verdict text NOT NULL CHECK (verdict IN ('failed', 'cited', 'named', 'lost', 'missing')),
      brand_rank integer,
      competitors_named integer[] NOT NULL DEFAULT '{}',
      PRIMARY KEY (prompt_id, provider)
    ) WITH (fillfactor = 70);
    CREATE INDEX rollup_prompt_latest_site_verdict_idx ON rollup_prompt_latest (site_id, verdict, prompt_id);
    CREATE INDEX rollup_prompt_latest_competitors_idx ON rollup_prompt_latest USING gin (competitors_named);

    -- One row per asked prompt: the list's "scanned" filter and its rank and scanned sorts.
    CREATE TABLE rollup_prompt_summary (
      prompt_id integer PRIMARY KEY REFERENCES prompts (id) ON DELETE CASCADE,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      scanned_at timestamptz NOT NULL,
      -- Mean brand rank over the assistants' latest answers that rank it; null when none does.
      brand_rank real
    ) WITH (fillfactor = 70);
    CREATE INDEX rollup_prompt_summary_rank_idx ON rollup_prompt_summary (site_id, brand_rank, prompt_id);
    CREATE INDEX rollup_prompt_summary_scanned_idx ON rollup_prompt_summary (site_id, scanned_at, prompt_id);

    -- The sentiment list: a period's newest answers naming the brand (one prompt's answers use answer_facts_prompt_idx of 0630).
    CREATE INDEX answer_facts_site_mentioned_idx ON answer_facts (site_id, day DESC, answer_id DESC) WHERE mentioned;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DROP INDEX answer_facts_site_mentioned_idx;
    DROP TABLE rollup_prompt_summary, rollup_prompt_latest, rollup_suggestion_period, rollup_model_period, rollup_search_period,
               rollup_own_page_prompt_period, rollup_page_period, rollup_source_period, rollup_competitor_period,
               rollup_prompt_competitor_period, rollup_prompt_period;
  `.execute(db);
}
