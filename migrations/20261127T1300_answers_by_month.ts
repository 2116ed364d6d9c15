import { sql, type Kysely } from 'kysely';

/**
 * Data that grows (issue 17): answers and their facts partitioned by month,
 * a retention setting per workspace, and rollups that go with their site.
 *
 * The partition key is `month`, the first day of the UTC month the answer's
 * scan was created in (docs/decisions.md "Answers partitioned by their
 * scan's month"). A function of the scan, so every answer of a scan sits in
 * one partition and "unique per (scan, prompt, provider, sample)" stays
 * exactly that with the month added, as Postgres requires of a unique index
 * on a partitioned table. answer_facts is partitioned the same way and
 * references its answer by (answer_id, month), so a month of facts goes
 * with its month of answers.
 *
 * ledger_entries.answer_id loses its foreign key: the ledger is money
 * history and outlives answers that retention drops (a DROP of a partition
 * cannot set anything null). It stays a plain id, still unique, so an answer
 * is charged at most once; answer ids come from one identity and are never
 * reused.
 *
 * Partitions are made ahead (no DEFAULT partition: it would hold rows
 * nobody planned for, make each later CREATE scan it, and rule out DETACH
 * CONCURRENTLY) by `ensure_answer_month`: here from the first scan's month
 * to three months ahead, then by the nightly retention job (this month and
 * the next two) and by every scan and import as it is created.
 *
 * The per-period rollup tables get the foreign key to sites they lacked,
 * ON DELETE CASCADE, so deleting a site removes every row of it (the
 * tables as they stand here, 20261127T1200's included; a later table
 * declares its own). Rows of sites deleted before, if any, are removed first.
 *
 * Existing answers and facts are copied into the partitioned tables with
 * their ids; the copy runs in the migration's transaction.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE answers RENAME TO answers_unpartitioned;
    ALTER SEQUENCE answers_id_seq RENAME TO answers_unpartitioned_id_seq;
    ALTER TABLE answer_facts RENAME TO answer_facts_unpartitioned;

    CREATE TABLE answers (
      id bigint GENERATED ALWAYS AS IDENTITY,
      scan_id integer NOT NULL CONSTRAINT answers_scan_id_fkey REFERENCES scans (id) ON DELETE CASCADE,
      site_id integer NOT NULL CONSTRAINT answers_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL CONSTRAINT answers_prompt_id_fkey REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      model text NOT NULL,
      asked_at timestamptz NOT NULL,
      day date NOT NULL,
      text text,
      citations jsonb NOT NULL DEFAULT '[]',
      searches jsonb NOT NULL DEFAULT '[]',
      usage jsonb,
      raw jsonb,
      cost_micros bigint NOT NULL DEFAULT 0 CONSTRAINT answers_cost_micros_check CHECK (cost_micros >= 0),
      error text,
      truncated boolean NOT NULL DEFAULT false,
      context text,
      simulated boolean NOT NULL DEFAULT false,
      sample smallint NOT NULL DEFAULT 1 CONSTRAINT answers_sample_check CHECK (sample BETWEEN 1 AND 5),
      -- The scan's month (first day, UTC): the partition key.
      month date NOT NULL CONSTRAINT answers_month_check CHECK (extract(day FROM month) = 1)
    ) PARTITION BY RANGE (month);

    CREATE TABLE answer_facts (
      answer_id bigint NOT NULL,
      site_id integer NOT NULL CONSTRAINT answer_facts_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL CONSTRAINT answer_facts_prompt_id_fkey REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      day date NOT NULL,
      verdict text NOT NULL CONSTRAINT answer_facts_verdict_check CHECK (verdict IN ('failed', 'cited', 'named', 'lost', 'missing')),
      mentioned boolean NOT NULL,
      own_cited boolean NOT NULL,
      brand_rank integer,
      brand_position integer,
      brands jsonb NOT NULL DEFAULT '[]',
      competitors_named integer[] NOT NULL DEFAULT '{}',
      competitors_cited integer[] NOT NULL DEFAULT '{}',
      citations jsonb NOT NULL DEFAULT '[]',
      tone text CONSTRAINT answer_facts_tone_check CHECK (tone IN ('positive', 'neutral', 'negative')),
      tone_score real,
      quote text,
      suggestions text[] NOT NULL DEFAULT '{}',
      brand_key text NOT NULL,
      -- Its answer's month.
      month date NOT NULL
    ) PARTITION BY RANGE (month);

    -- Makes the answers and answer_facts partitions of p_month's month when missing; true when it made them.
    -- Created then attached: ATTACH takes a SHARE UPDATE EXCLUSIVE lock on the parent, where CREATE TABLE
    -- ... PARTITION OF takes ACCESS EXCLUSIVE and would queue every read of answers behind a long reanalysis.
    CREATE FUNCTION ensure_answer_month(p_month date) RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      v_month date := date_trunc('month', p_month)::date;
      v_next date := (date_trunc('month', p_month) + interval '1 month')::date;
      v_answers text := 'answers_' || to_char(v_month, '"y"YYYY"m"MM');
      v_facts text := 'answer_facts_' || to_char(v_month, '"y"YYYY"m"MM');
      v_made boolean := false;
    BEGIN
      IF to_regclass(v_answers) IS NOT NULL AND to_regclass(v_facts) IS NOT NULL THEN
        RETURN false;
      END IF;
      -- One maker at a time; whoever waited finds the tables made.
      PERFORM pg_advisory_xact_lock(hashtext('ensure_answer_month'));
      IF to_regclass(v_answers) IS NULL THEN
        EXECUTE format('CREATE TABLE %I (LIKE answers INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_answers);
        EXECUTE format('ALTER TABLE answers ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_answers, v_month, v_next);
        v_made := true;
      END IF;
      IF to_regclass(v_facts) IS NULL THEN
        EXECUTE format('CREATE TABLE %I (LIKE answer_facts INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', v_facts);
        EXECUTE format('ALTER TABLE answer_facts ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_facts, v_month, v_next);
        v_made := true;
      END IF;
      RETURN v_made;
    END $$;

    SELECT ensure_answer_month(m::date)
      FROM generate_series(date_trunc('month', least(coalesce((SELECT min(created_at) FROM scans), now()), now()) AT TIME ZONE 'UTC'),
                           date_trunc('month', now() AT TIME ZONE 'UTC') + interval '3 months', interval '1 month') AS m;

    INSERT INTO answers (id, scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, searches, usage, raw,
                         cost_micros, error, truncated, context, simulated, sample, month)
    OVERRIDING SYSTEM VALUE
    SELECT a.id, a.scan_id, a.site_id, a.prompt_id, a.provider, a.model, a.asked_at, a.day, a.text, a.citations, a.searches, a.usage, a.raw,
           a.cost_micros, a.error, a.truncated, a.context, a.simulated, a.sample, date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date
      FROM answers_unpartitioned a JOIN scans s ON s.id = a.scan_id;

    INSERT INTO answer_facts (answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_rank, brand_position, brands,
                              competitors_named, competitors_cited, citations, tone, tone_score, quote, suggestions, brand_key, month)
    SELECT f.answer_id, f.site_id, f.prompt_id, f.provider, f.day, f.verdict, f.mentioned, f.own_cited, f.brand_rank, f.brand_position, f.brands,
           f.competitors_named, f.competitors_cited, f.citations, f.tone, f.tone_score, f.quote, f.suggestions, f.brand_key,
           date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date
      FROM answer_facts_unpartitioned f JOIN answers_unpartitioned a ON a.id = f.answer_id JOIN scans s ON s.id = a.scan_id;

    SELECT setval(pg_get_serial_sequence('answers', 'id'), last_value, is_called) FROM answers_unpartitioned_id_seq;

    ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_answer_id_fkey;
    DROP TABLE answer_facts_unpartitioned, answers_unpartitioned;

    -- Indexes after the copy (faster); each partition gets its own, named after it.
    ALTER TABLE answers ADD CONSTRAINT answers_pkey PRIMARY KEY (id, month);
    -- The month is the scan's: unique per (scan, prompt, provider, sample) as before.
    ALTER TABLE answers ADD CONSTRAINT answers_scan_prompt_provider_sample_key UNIQUE (scan_id, prompt_id, provider, sample, month);
    CREATE INDEX answers_site_prompt_idx ON answers (site_id, prompt_id, asked_at DESC);
    CREATE INDEX answers_site_id_idx ON answers (site_id, id);
    CREATE INDEX answers_prompt_idx ON answers (prompt_id);
    CREATE INDEX answers_scan_idx ON answers (scan_id, id);

    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_pkey PRIMARY KEY (answer_id, month);
    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_answer_fkey FOREIGN KEY (answer_id, month) REFERENCES answers (id, month) ON DELETE CASCADE;
    CREATE INDEX answer_facts_site_day_idx ON answer_facts (site_id, day);
    CREATE INDEX answer_facts_prompt_idx ON answer_facts (prompt_id);
    CREATE INDEX answer_facts_site_mentioned_idx ON answer_facts (site_id, day DESC, answer_id DESC) WHERE mentioned;

    -- Autovacuum analyzes partitions, never a partitioned parent: the planner needs both.
    ANALYZE answers;
    ANALYZE answer_facts;

    -- Keep everything (null) or the current month and this many before it.
    ALTER TABLE orgs ADD COLUMN retention_months integer CHECK (retention_months BETWEEN 1 AND 1200);
    -- Sites whose rollups still count answers retention dropped with a whole month's partition: written
    -- before the drop, removed in the transaction that rebuilds the site's rollups (under its lock).
    CREATE TABLE retention_rebuilds (
      site_id integer PRIMARY KEY REFERENCES sites (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `.execute(db);

  // Every rollup table with a site_id and no foreign key to sites (the per-period ones; the
  // latest and summary tables and rollup_site_day have one), as they stand at this migration.
  await sql`
    DO $$
    DECLARE t text;
    BEGIN
      FOR t IN SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'site_id' AND NOT a.attisdropped
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'rollup_%'
                  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid = 'sites'::regclass)
                ORDER BY 1
      LOOP
        EXECUTE format('DELETE FROM %I r WHERE NOT EXISTS (SELECT 1 FROM sites s WHERE s.id = r.site_id)', t);
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE', t, t || '_site_fkey');
      END LOOP;
    END $$`.execute(db);
}

/**
 * Back to one table each, every row kept. Ledger entries whose answer
 * retention dropped get a null answer_id, so the old foreign key holds.
 */
export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN SELECT conrelid::regclass AS tbl, conname FROM pg_constraint WHERE contype = 'f' AND conname LIKE 'rollup_%_site_fkey' LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
      END LOOP;
    END $$;

    DROP TABLE retention_rebuilds;
    ALTER TABLE orgs DROP COLUMN retention_months;

    ALTER TABLE answers RENAME TO answers_by_month;
    ALTER SEQUENCE answers_id_seq RENAME TO answers_by_month_id_seq;
    ALTER TABLE answer_facts RENAME TO answer_facts_by_month;

    CREATE TABLE answers (
      id bigint GENERATED ALWAYS AS IDENTITY,
      scan_id integer NOT NULL CONSTRAINT answers_scan_id_fkey REFERENCES scans (id) ON DELETE CASCADE,
      site_id integer NOT NULL CONSTRAINT answers_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL CONSTRAINT answers_prompt_id_fkey REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      model text NOT NULL,
      asked_at timestamptz NOT NULL,
      day date NOT NULL,
      text text,
      citations jsonb NOT NULL DEFAULT '[]',
      searches jsonb NOT NULL DEFAULT '[]',
      usage jsonb,
      raw jsonb,
      cost_micros bigint NOT NULL DEFAULT 0 CONSTRAINT answers_cost_micros_check CHECK (cost_micros >= 0),
      error text,
      truncated boolean NOT NULL DEFAULT false,
      context text,
      simulated boolean NOT NULL DEFAULT false,
      sample smallint NOT NULL DEFAULT 1 CONSTRAINT answers_sample_check CHECK (sample BETWEEN 1 AND 5)
    );
    CREATE TABLE answer_facts (
      answer_id bigint NOT NULL,
      site_id integer NOT NULL CONSTRAINT answer_facts_site_id_fkey REFERENCES sites (id) ON DELETE CASCADE,
      prompt_id integer NOT NULL CONSTRAINT answer_facts_prompt_id_fkey REFERENCES prompts (id) ON DELETE CASCADE,
      provider text NOT NULL,
      day date NOT NULL,
      verdict text NOT NULL CONSTRAINT answer_facts_verdict_check CHECK (verdict IN ('failed', 'cited', 'named', 'lost', 'missing')),
      mentioned boolean NOT NULL,
      own_cited boolean NOT NULL,
      brand_rank integer,
      brand_position integer,
      brands jsonb NOT NULL DEFAULT '[]',
      competitors_named integer[] NOT NULL DEFAULT '{}',
      competitors_cited integer[] NOT NULL DEFAULT '{}',
      citations jsonb NOT NULL DEFAULT '[]',
      tone text CONSTRAINT answer_facts_tone_check CHECK (tone IN ('positive', 'neutral', 'negative')),
      tone_score real,
      quote text,
      suggestions text[] NOT NULL DEFAULT '{}',
      brand_key text NOT NULL
    );

    INSERT INTO answers (id, scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, searches, usage, raw,
                         cost_micros, error, truncated, context, simulated, sample)
    OVERRIDING SYSTEM VALUE
    SELECT id, scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, searches, usage, raw,
           cost_micros, error, truncated, context, simulated, sample
      FROM answers_by_month;
    INSERT INTO answer_facts (answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_rank, brand_position, brands,
                              competitors_named, competitors_cited, citations, tone, tone_score, quote, suggestions, brand_key)
    SELECT answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_rank, brand_position, brands,
           competitors_named, competitors_cited, citations, tone, tone_score, quote, suggestions, brand_key
      FROM answer_facts_by_month;
    SELECT setval(pg_get_serial_sequence('answers', 'id'), last_value, is_called) FROM answers_by_month_id_seq;

    DROP TABLE answer_facts_by_month, answers_by_month;
    DROP FUNCTION ensure_answer_month(date);

    ALTER TABLE answers ADD CONSTRAINT answers_pkey PRIMARY KEY (id);
    ALTER TABLE answers ADD CONSTRAINT answers_scan_prompt_provider_sample_key UNIQUE (scan_id, prompt_id, provider, sample);
    CREATE INDEX answers_site_prompt_idx ON answers (site_id, prompt_id, asked_at DESC);
    CREATE INDEX answers_site_id_idx ON answers (site_id, id);
    CREATE INDEX answers_prompt_idx ON answers (prompt_id);
    CREATE INDEX answers_scan_idx ON answers (scan_id, id);
    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_pkey PRIMARY KEY (answer_id);
    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_answer_id_fkey FOREIGN KEY (answer_id) REFERENCES answers (id) ON DELETE CASCADE;
    CREATE INDEX answer_facts_site_day_idx ON answer_facts (site_id, day);
    CREATE INDEX answer_facts_prompt_idx ON answer_facts (prompt_id);
    CREATE INDEX answer_facts_site_mentioned_idx ON answer_facts (site_id, day DESC, answer_id DESC) WHERE mentioned;

    UPDATE ledger_entries l SET answer_id = NULL
     WHERE answer_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.id = l.answer_id);
    ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_answer_id_fkey FOREIGN KEY (answer_id) REFERENCES answers (id) ON DELETE SET NULL;
    ANALYZE answers;
    ANALYZE answer_facts;
  `.execute(db);
}
