import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE scans (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      org_id integer NOT NULL REFERENCES orgs (id) ON DELETE CASCADE,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'cancelling', 'cancelled', 'done', 'failed')),
      trigger text NOT NULL DEFAULT 'manual' CHECK (trigger IN ('manual', 'schedule', 'import')),
      label text,
      batch boolean NOT NULL DEFAULT false,
      -- What to ask: providers, models, prompt ids, category, sample; frozen at start.
      plan jsonb NOT NULL DEFAULT '{}',
      budget_micros bigint NOT NULL DEFAULT 0 CHECK (budget_micros >= 0),
      -- Settled charges plus reservations of calls in flight; never above the budget.
      spent_micros bigint NOT NULL DEFAULT 0 CHECK (spent_micros >= 0),
      stop_reason text CHECK (stop_reason IN ('budget', 'cap', 'balance', 'cancelled', 'error')),
      answers_total integer NOT NULL DEFAULT 0,
      answers_done integer NOT NULL DEFAULT 0,
      answers_failed integer NOT NULL DEFAULT 0,
      error text,
      created_by integer REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      CHECK (spent_micros <= budget_micros OR trigger = 'import')
    );
    -- "One scan per site" is a database fact, also under concurrent starts.
    CREATE UNIQUE INDEX scans_one_active_per_site ON scans (site_id) WHERE status IN ('queued', 'running', 'cancelling');
    CREATE INDEX scans_site_created_idx ON scans (site_id, created_at DESC);
    CREATE INDEX scans_org_created_idx ON scans (org_id, created_at);

    CREATE TABLE answers (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      scan_id integer NOT NULL REFERENCES scans (id) ON DELETE CASCADE,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      model text NOT NULL,
      asked_at timestamptz NOT NULL,
      day date NOT NULL,
      text text,
      citations jsonb NOT NULL DEFAULT '[]',
      searches jsonb NOT NULL DEFAULT '[]',
      usage jsonb,
      raw jsonb,
      cost_micros bigint NOT NULL DEFAULT 0 CHECK (cost_micros >= 0),
      error text,
      truncated boolean NOT NULL DEFAULT false,
      -- The persona wording the prompt was asked with, kept as asked.
      context text,
      UNIQUE (scan_id, prompt_id, provider)
    );
    CREATE INDEX answers_site_prompt_idx ON answers (site_id, prompt_id, asked_at DESC);
    CREATE INDEX answers_site_id_idx ON answers (site_id, id);

    -- What analysis derived from an answer; reanalysis rewrites these, never answers.
    CREATE TABLE answer_facts (
      answer_id bigint PRIMARY KEY REFERENCES answers (id) ON DELETE CASCADE,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      day date NOT NULL,
      verdict text NOT NULL CHECK (verdict IN ('failed', 'cited', 'named', 'lost', 'missing')),
      mentioned boolean NOT NULL,
      own_cited boolean NOT NULL,
      brand_rank integer,
      brand_position integer,
      brands jsonb NOT NULL DEFAULT '[]',
      competitors_named integer[] NOT NULL DEFAULT '{}',
      competitors_cited integer[] NOT NULL DEFAULT '{}',
      citations jsonb NOT NULL DEFAULT '[]',
      tone text CHECK (tone IN ('positive', 'neutral', 'negative')),
      tone_score real,
      quote text,
      suggestions text[] NOT NULL DEFAULT '{}',
      brand_key text NOT NULL
    );
    CREATE INDEX answer_facts_site_day_idx ON answer_facts (site_id, day);

    -- Report rollups: one row per site, day and provider; reports sum these
    -- into weeks, months and quarters. Kept current in the transaction that
    -- writes facts, rebuilt from facts by reanalysis.
    CREATE TABLE rollup_site_day (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      day date NOT NULL,
      provider text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      mentioned integer NOT NULL DEFAULT 0,
      own_cited integer NOT NULL DEFAULT 0,
      rank_sum integer NOT NULL DEFAULT 0,
      rank_count integer NOT NULL DEFAULT 0,
      competitor_mentions integer NOT NULL DEFAULT 0,
      positive integer NOT NULL DEFAULT 0,
      neutral integer NOT NULL DEFAULT 0,
      negative integer NOT NULL DEFAULT 0,
      tone_sum real NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, day, provider)
    );

    CREATE TABLE rollup_competitor_day (
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      day date NOT NULL,
      provider text NOT NULL,
      competitor_id integer NOT NULL,
      mentioned integer NOT NULL DEFAULT 0,
      cited integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, day, provider, competitor_id)
    );

    -- A request to re-read a site's stored answers with its current names.
    CREATE TABLE reanalyses (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      reason text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      verdicts_changed integer NOT NULL DEFAULT 0,
      error text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    CREATE INDEX reanalyses_site_idx ON reanalyses (site_id, id DESC);

    ALTER TABLE ledger_entries
      ADD COLUMN scan_id integer REFERENCES scans (id) ON DELETE SET NULL,
      ADD COLUMN answer_id bigint REFERENCES answers (id) ON DELETE SET NULL;
    -- An answer is charged at most once, whatever retries or workers do.
    CREATE UNIQUE INDEX ledger_entries_answer_key ON ledger_entries (answer_id) WHERE answer_id IS NOT NULL;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    -- A request to re-read a site's stored answers with its current names.
    CREATE TABLE reanalyses (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
      reason text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      verdicts_changed integer NOT NULL DEFAULT 0,
      error text,
      requested_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz
    );
    CREATE INDEX reanalyses_site_idx ON reanalyses (site_id, id DESC);

    ALTER TABLE ledger_entries DROP COLUMN answer_id, DROP COLUMN scan_id;
    DROP TABLE reanalyses, rollup_competitor_day, rollup_site_day, answer_facts, answers, scans;
  `.execute(db);
}
