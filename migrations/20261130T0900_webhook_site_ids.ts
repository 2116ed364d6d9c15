import { sql, type Kysely } from 'kysely';

/**
 * A webhook's sites are `site_ids`, the code's word for a brand's website
 * (docs/glossary.md); the API keeps its word, `projectIds`, mapped where a
 * webhook is read and written (src/domain/webhooks/webhooks.ts). No SQL
 * function or trigger names the column; the outbox's query does, and
 * changes with it. Its CHECK constraint is renamed to match.
 */
// Migrations see the database as it was, not the current schema: untyped.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE webhooks RENAME COLUMN project_ids TO site_ids;
    ALTER TABLE webhooks RENAME CONSTRAINT webhooks_project_ids_check TO webhooks_site_ids_check;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE webhooks RENAME CONSTRAINT webhooks_site_ids_check TO webhooks_project_ids_check;
    ALTER TABLE webhooks RENAME COLUMN site_ids TO project_ids;
  `.execute(db);
}
