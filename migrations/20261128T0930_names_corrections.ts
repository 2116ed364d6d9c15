import { sql, type Kysely } from 'kysely';

/**
 * Names and corrections (CONTRACT.md "Names and corrections"):
 *
 * - `exclude_phrases` on sites and competitors: phrases in which their
 *   names never count ("Amazon rainforest").
 * - `answer_facts.name_readings`: per tracked name that occurs in the
 *   answer, how often it counted and was refused, with a quote each way
 *   (null on facts written before this column; reanalysis fills it). Added
 *   to the partitioned parent, so every month's partition has it, and
 *   `ensure_answer_month` (CREATE TABLE ... LIKE answer_facts) copies it.
 * - `mention_feedback`: a reader's correction of one answer's reading,
 *   one per (answer, folded name); a new one replaces the old. It goes
 *   with its answer: a foreign key to answers (id, month) ON DELETE
 *   CASCADE (retention's row deletes, a prompt or scan deleted, a site
 *   deleted), and retention deletes a month's corrections before it
 *   detaches that month's partition (DETACH refuses while rows reference
 *   it). `reading_agreed`: whether the reading, without this correction,
 *   said what the reader said: what the name's precision is measured from.
 */

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE sites ADD COLUMN exclude_phrases text[] NOT NULL DEFAULT '{}';
    ALTER TABLE competitors ADD COLUMN exclude_phrases text[] NOT NULL DEFAULT '{}';
    ALTER TABLE answer_facts ADD COLUMN name_readings jsonb;

    CREATE TABLE mention_feedback (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      answer_id bigint NOT NULL,
      answer_month date NOT NULL,
      -- As the reader gave it (trimmed), and folded as the brand book compares names.
      name text NOT NULL,
      name_key text NOT NULL,
      mentioned boolean NOT NULL,
      reading_agreed boolean NOT NULL,
      user_id integer REFERENCES users (id) ON DELETE SET NULL,
      key_id integer REFERENCES api_keys (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT mention_feedback_answer_name_key UNIQUE (answer_id, name_key),
      CONSTRAINT mention_feedback_answer_fkey FOREIGN KEY (answer_id, answer_month) REFERENCES answers (id, month) ON DELETE CASCADE
    );
    -- The list, newest first, and a name's corrections (its precision).
    CREATE INDEX mention_feedback_site_idx ON mention_feedback (site_id, created_at DESC, id DESC);
    CREATE INDEX mention_feedback_site_name_idx ON mention_feedback (site_id, name_key);
    -- Retention deletes a month's corrections before detaching it.
    CREATE INDEX mention_feedback_month_idx ON mention_feedback (answer_month);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DROP TABLE mention_feedback;
    ALTER TABLE answer_facts DROP COLUMN name_readings;
    ALTER TABLE competitors DROP COLUMN exclude_phrases;
    ALTER TABLE sites DROP COLUMN exclude_phrases;
  `.execute(db);
}
