import { sql, type Kysely } from 'kysely';

// CONTRACT.md "Configuration": a customer always sees which answers the
// bundled simulator gave. Answers stored before this were not marked, and
// keep false.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE answers ADD COLUMN simulated boolean NOT NULL DEFAULT false`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE answers DROP COLUMN simulated`.execute(db);
}
