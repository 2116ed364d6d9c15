import { sql, type Kysely } from 'kysely';

/**
 * The sources report's site-type shares (citations of a type among all
 * citations) need each prompt's citations per site type for their
 * intervals. Read from the per-(domain, prompt) table that is every cited
 * domain of every prompt (64,000 rows a month on the reports bench); kept
 * per (site type, prompt) it is at most nine rows a prompt. Weeks, months
 * and quarters, like the other per-prompt tables; filled from the facts.
 */

const PERIODS = sql`CROSS JOIN LATERAL (VALUES ('week'::text, date_trunc('week', d.day::timestamp)::date),
                                               ('month', date_trunc('month', d.day::timestamp)::date),
                                               ('quarter', date_trunc('quarter', d.day::timestamp)::date)) AS k(period, start)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE rollup_prompt_site_type_period (
      -- Deleting a site removes its rollups (20261127T1300).
      site_id integer NOT NULL REFERENCES sites (id) ON DELETE CASCADE,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      site_type text NOT NULL,
      prompt_id integer NOT NULL,
      citations integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, site_type, prompt_id)
    ) WITH (fillfactor = 70)`.execute(db);
  await sql`
    WITH d AS (
      SELECT f.site_id, f.day, x->>'siteType' AS site_type, f.prompt_id, count(*) AS citations
        FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) x
       WHERE x->>'domain' <> ''
       GROUP BY 1, 2, 3, 4)
    INSERT INTO rollup_prompt_site_type_period (site_id, period, start, site_type, prompt_id, citations)
    SELECT d.site_id, k.period, k.start, d.site_type, d.prompt_id, sum(d.citations)
      FROM d ${PERIODS} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`.execute(db);
  await sql`ANALYZE rollup_prompt_site_type_period`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE rollup_prompt_site_type_period`.execute(db);
}
