import { sql, type Kysely } from 'kysely';

/**
 * Each prompt's citations per site type move from a table of their own,
 * rollup_prompt_site_type_period (migration 20261127T1400: one row per site
 * type and prompt, for weeks, months and quarters), into nine columns of
 * rollup_prompt_period, the prompt's row that every stored answer writes
 * anyway (issue 30: those were 9 of the 40 rollup rows an answer, with their
 * index entries and WAL; bench/README.md "scan: database work per answer").
 * The sources report reads them per prompt as before, for every period kind
 * (rollup_prompt_period keeps day rows too, where the day view read facts).
 *
 * The new columns are filled from the facts, as a rebuild fills them, for
 * every kind, and the old table is dropped (the trigger on sites finds the
 * rollup tables in the catalog, so it needs no change).
 */

const TYPES = ['own', 'competitor', 'ugc', 'review', 'news', 'reference', 'social', 'video', 'other'];
const column = (t: string) => `${t}_citations`;

const KINDS = sql`CROSS JOIN LATERAL (VALUES ('day'::text, d.day), ('week', date_trunc('week', d.day::timestamp)::date),
                                              ('month', date_trunc('month', d.day::timestamp)::date),
                                              ('quarter', date_trunc('quarter', d.day::timestamp)::date)) AS k(period, start)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE rollup_prompt_period ${sql.raw(TYPES.map((t) => `ADD COLUMN ${column(t)} integer NOT NULL DEFAULT 0`).join(', '))}`.execute(
    db,
  );
  // Citations with a domain, per (site, day, prompt) and type, summed into each period kind.
  await sql`
    WITH d AS (
      SELECT f.site_id, f.day, f.prompt_id, ${sql.raw(TYPES.map((t) => `count(*) FILTER (WHERE x->>'siteType' = '${t}') AS ${column(t)}`).join(', '))}
        FROM answer_facts f CROSS JOIN LATERAL jsonb_array_elements(f.citations) x
       WHERE x->>'domain' <> ''
       GROUP BY 1, 2, 3),
    p AS (
      SELECT d.site_id, k.period, k.start, d.prompt_id, ${sql.raw(TYPES.map((t) => `sum(d.${column(t)}) AS ${column(t)}`).join(', '))}
        FROM d ${KINDS} GROUP BY 1, 2, 3, 4)
    UPDATE rollup_prompt_period r SET ${sql.raw(TYPES.map((t) => `${column(t)} = p.${column(t)}`).join(', '))}
      FROM p
     WHERE r.site_id = p.site_id AND r.period = p.period AND r.start = p.start AND r.prompt_id = p.prompt_id`.execute(
    db,
  );
  await sql`DROP TABLE rollup_prompt_site_type_period`.execute(db);
  await sql`ANALYZE rollup_prompt_period`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    CREATE TABLE rollup_prompt_site_type_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      site_type text NOT NULL,
      prompt_id integer NOT NULL,
      citations integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, site_type, prompt_id)
    ) WITH (fillfactor = 70)`.execute(db);
  await sql`
    INSERT INTO rollup_prompt_site_type_period (site_id, period, start, site_type, prompt_id, citations)
    SELECT r.site_id, r.period, r.start, s.site_type, r.prompt_id, s.citations
      FROM rollup_prompt_period r
     CROSS JOIN LATERAL (VALUES ${sql.raw(TYPES.map((t) => `('${t}', r.${column(t)})`).join(', '))}) AS s(site_type, citations)
     WHERE r.period <> 'day' AND s.citations > 0
     ORDER BY 1, 2, 3, 4, 5`.execute(db);
  await sql`ALTER TABLE rollup_prompt_period ${sql.raw(TYPES.map((t) => `DROP COLUMN ${column(t)}`).join(', '))}`.execute(
    db,
  );
}
