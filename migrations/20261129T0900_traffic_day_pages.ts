import { sql, type Kysely } from 'kysely';

/**
 * Crawler traffic (issue 28), faster imports: pages are counted per day
 * only. A week's, month's or quarter's (agent, page) counters are summed
 * from its days when an import ends (store.ts `summarizePeriods`), which
 * is all they were read for; writing them cost an import as many rows
 * again as the days'. The rows written before go. Per-agent and referral
 * counters of every period stay (trends read them).
 */
// Migrations see the database as it was, not the current schema: untyped.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DELETE FROM traffic_page_period WHERE period <> 'day'`.execute(db);
}

/** The coarse page rows are rebuilt from the days, as the import used to write them. */
export async function down(db: Kysely<any>): Promise<void> {
  for (const [period, trunc] of [
    ['week', 'week'],
    ['month', 'month'],
    ['quarter', 'quarter'],
  ] as const) {
    await sql`
      INSERT INTO traffic_page_period (site_id, period, start, agent, path_id, hits, verified, spoofed, s2xx, s3xx, s4xx, s5xx)
      SELECT site_id, ${period}, date_trunc(${trunc}, start::timestamp)::date, agent, path_id,
             sum(hits), sum(verified), sum(spoofed), sum(s2xx), sum(s3xx), sum(s4xx), sum(s5xx)
        FROM traffic_page_period WHERE period = 'day' GROUP BY 1, 2, 3, 4, 5`.execute(db);
  }
}
