import { sql, type Kysely } from 'kysely';

/**
 * The database's work per stored answer (issue 30, bench/README.md "scan:
 * database work per answer"). A batch of 100 answers wrote about 40 rollup
 * rows an answer, and each new row ran a foreign-key check (an SPI query
 * that locks the site row FOR KEY SHARE): those checks were a sixth of the
 * backend's CPU per answer. What they guaranteed is kept another way:
 *
 * - The rollup tables lose their foreign keys to sites (and the two latest
 *   tables theirs to prompts). Deleting a site still removes every rollup
 *   row of it, now by one statement-level trigger on sites that deletes from
 *   every rollup table with a site_id (found in the catalog, as migration
 *   20261127T1300 found them, so a later rollup table is covered too); a
 *   deleted prompt's latest rows and summary go by one on prompts. What the
 *   foreign key also refused, a rollup row for a site that does not exist,
 *   cannot be written: rollup rows come from facts, facts from answers, and
 *   answers keep their foreign key to their scan (and through it the site),
 *   and a site is deleted only under its lock with no scan active.
 * - answer_facts loses its foreign keys to sites and prompts, and answers
 *   the one to sites: each was a second path to a cascade that already
 *   happens (facts go with their answer, answers with their scan and
 *   prompt, scans with their site). answer_facts_prompt_idx, which only
 *   that cascade from prompts read, goes too (one index entry less per
 *   answer); no query reads facts by prompt alone.
 *
 * Answer bodies and raw responses are compressed with lz4 instead of pglz
 * (pglz was a twentieth of the backend's CPU per answer, for rows of about
 * 3.5 KB), on the parents and every month's partition, and
 * `ensure_answer_month` now copies the columns' compression to the
 * partitions it makes. Values already stored keep pglz: Postgres reads both.
 */

const ROLLUP_SITE_FKEYS = sql`
  SELECT c.conrelid::regclass::text AS tbl, c.conname
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid
   WHERE c.contype = 'f' AND t.relname LIKE 'rollup\\_%' AND t.relnamespace = 'public'::regnamespace
     AND c.confrelid IN ('sites'::regclass, 'prompts'::regclass)`;

const ANSWER_COLUMNS = ['text', 'citations', 'searches', 'usage', 'raw', 'context'];
const FACT_COLUMNS = ['brands', 'citations', 'quote', 'name_readings'];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    DO $$
    DECLARE r record;
    BEGIN
      FOR r IN ${ROLLUP_SITE_FKEYS} LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', r.tbl, r.conname);
      END LOOP;
    END $$`.execute(db);
  await sql`
    ALTER TABLE answer_facts DROP CONSTRAINT answer_facts_site_id_fkey;
    ALTER TABLE answer_facts DROP CONSTRAINT answer_facts_prompt_id_fkey;
    ALTER TABLE answers DROP CONSTRAINT answers_site_id_fkey;
    -- It served only the cascade from prompts to facts (migration 20261122T0630); facts now go with their answer.
    DROP INDEX answer_facts_prompt_idx;

    -- Every rollup row of the sites a statement deleted (cascades from orgs included).
    CREATE FUNCTION delete_site_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      v_ids integer[];
      t text;
    BEGIN
      SELECT array_agg(id) INTO v_ids FROM gone;
      IF v_ids IS NULL THEN RETURN NULL; END IF;
      FOR t IN SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'site_id' AND NOT a.attisdropped
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'rollup\\_%'
                ORDER BY 1
      LOOP
        EXECUTE format('DELETE FROM %I WHERE site_id = ANY ($1)', t) USING v_ids;
      END LOOP;
      RETURN NULL;
    END $$;
    CREATE TRIGGER sites_delete_rollups AFTER DELETE ON sites REFERENCING OLD TABLE AS gone
      FOR EACH STATEMENT EXECUTE FUNCTION delete_site_rollups();

    CREATE FUNCTION delete_prompt_rollups() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      DELETE FROM rollup_prompt_latest WHERE prompt_id IN (SELECT id FROM gone);
      DELETE FROM rollup_prompt_summary WHERE prompt_id IN (SELECT id FROM gone);
      RETURN NULL;
    END $$;
    CREATE TRIGGER prompts_delete_rollups AFTER DELETE ON prompts REFERENCING OLD TABLE AS gone
      FOR EACH STATEMENT EXECUTE FUNCTION delete_prompt_rollups();
  `.execute(db);

  await setCompression(db, 'lz4');
  await ensureAnswerMonth(db, 'INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING COMPRESSION');
}

/** The compression of the answers' and facts' large columns, on the parents and on each partition (the setting does not recurse). */
async function setCompression(db: Kysely<any>, method: 'lz4' | 'default'): Promise<void> {
  for (const [parent, columns] of [
    ['answers', ANSWER_COLUMNS],
    ['answer_facts', FACT_COLUMNS],
  ] as const) {
    const { rows } = await sql<{
      name: string;
    }>`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = ${parent}::regclass`.execute(db);
    for (const table of [parent, ...rows.map((r) => r.name)])
      await sql`ALTER TABLE ${sql.raw(table)} ${sql.raw(columns.map((c) => `ALTER COLUMN ${c} SET COMPRESSION ${method}`).join(', '))}`.execute(
        db,
      );
  }
}

/** ensure_answer_month as migration 20261127T1300 made it, with `like` as what each new partition copies of its parent. */
async function ensureAnswerMonth(db: Kysely<any>, like: string): Promise<void> {
  await sql`
    CREATE OR REPLACE FUNCTION ensure_answer_month(p_month date) RETURNS boolean LANGUAGE plpgsql AS $$
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
        EXECUTE format('CREATE TABLE %I (LIKE answers ${sql.raw(like)})', v_answers);
        EXECUTE format('ALTER TABLE answers ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_answers, v_month, v_next);
        v_made := true;
      END IF;
      IF to_regclass(v_facts) IS NULL THEN
        EXECUTE format('CREATE TABLE %I (LIKE answer_facts ${sql.raw(like)})', v_facts);
        EXECUTE format('ALTER TABLE answer_facts ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', v_facts, v_month, v_next);
        v_made := true;
      END IF;
      RETURN v_made;
    END $$`.execute(db);
}

/** The foreign keys back (rows of sites or prompts deleted meanwhile are gone: the triggers removed them). */
export async function down(db: Kysely<any>): Promise<void> {
  await ensureAnswerMonth(db, 'INCLUDING DEFAULTS INCLUDING CONSTRAINTS');
  await setCompression(db, 'default');
  await sql`
    DROP TRIGGER prompts_delete_rollups ON prompts;
    DROP FUNCTION delete_prompt_rollups();
    DROP TRIGGER sites_delete_rollups ON sites;
    DROP FUNCTION delete_site_rollups();
    CREATE INDEX answer_facts_prompt_idx ON answer_facts (prompt_id);
    ALTER TABLE answers ADD CONSTRAINT answers_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_prompt_id_fkey FOREIGN KEY (prompt_id) REFERENCES prompts (id) ON DELETE CASCADE;
    ALTER TABLE answer_facts ADD CONSTRAINT answer_facts_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
    ALTER TABLE rollup_prompt_latest ADD CONSTRAINT rollup_prompt_latest_prompt_id_fkey FOREIGN KEY (prompt_id) REFERENCES prompts (id) ON DELETE CASCADE;
    ALTER TABLE rollup_prompt_summary ADD CONSTRAINT rollup_prompt_summary_prompt_id_fkey FOREIGN KEY (prompt_id) REFERENCES prompts (id) ON DELETE CASCADE;
    ALTER TABLE rollup_prompt_latest ADD CONSTRAINT rollup_prompt_latest_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
    ALTER TABLE rollup_prompt_summary ADD CONSTRAINT rollup_prompt_summary_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
    ALTER TABLE rollup_site_day ADD CONSTRAINT rollup_site_day_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
    ALTER TABLE rollup_prompt_site_type_period ADD CONSTRAINT rollup_prompt_site_type_period_site_id_fkey FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE;
  `.execute(db);
  // The per-period tables had theirs named <table>_site_fkey (migration 20261127T1300).
  await sql`
    DO $$
    DECLARE t text;
    BEGIN
      FOR t IN SELECT c.relname FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'site_id' AND NOT a.attisdropped
                WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'r' AND c.relname LIKE 'rollup\\_%\\_period'
                  AND c.relname <> 'rollup_prompt_site_type_period'
                  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'f' AND k.confrelid = 'sites'::regclass)
                ORDER BY 1
      LOOP
        EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY (site_id) REFERENCES sites (id) ON DELETE CASCADE', t, t || '_site_fkey');
      END LOOP;
    END $$`.execute(db);
}
