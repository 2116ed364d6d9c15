import { sql, type Kysely } from 'kysely';

// Repeated requests to re-read a site coalesce into the one still waiting to
// run: at most one queued reanalysis per site, as a database fact. Older
// duplicates waiting now are folded into the newest.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    UPDATE reanalyses r SET status = 'failed', error = 'coalesced into a later request', finished_at = now()
     WHERE r.status = 'queued'
       AND EXISTS (SELECT 1 FROM reanalyses n WHERE n.site_id = r.site_id AND n.status = 'queued' AND n.id > r.id);
    CREATE UNIQUE INDEX reanalyses_one_queued_per_site ON reanalyses (site_id) WHERE status = 'queued';
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX reanalyses_one_queued_per_site`.execute(db);
}
