import { sql, type Kysely } from 'kysely';

/**
 * How much of an answer's text its facts were read from (issue 24): analysis
 * reads at most a bounded prefix of a text, and an answer it could not read
 * within its time limit gets facts that say so. Facts written before this
 * read the whole text: `read_chars` stays null for them (the answer's view
 * shows the text's length), the flags false. Added to the partitioned
 * parent, so every month's partition gets them, and those made later too
 * (ensure_answer_month copies the parent's columns).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE answer_facts
      ADD COLUMN read_chars integer,
      ADD COLUMN read_truncated boolean NOT NULL DEFAULT false,
      ADD COLUMN read_timed_out boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE answer_facts DROP COLUMN read_chars, DROP COLUMN read_truncated, DROP COLUMN read_timed_out`.execute(
    db,
  );
}
