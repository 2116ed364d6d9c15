import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // Deleting prompts cascades to their answers and facts: without these, each
  // deleted prompt scanned the whole answers table.
  await sql`
    CREATE INDEX answers_prompt_idx ON answers (prompt_id);
    CREATE INDEX answer_facts_prompt_idx ON answer_facts (prompt_id);
    CREATE INDEX answers_scan_idx ON answers (scan_id, id);
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX answers_prompt_idx, answer_facts_prompt_idx, answers_scan_idx`.execute(db);
}
