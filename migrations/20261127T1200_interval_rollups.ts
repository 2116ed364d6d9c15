import { sql, type Kysely } from 'kysely';

/**
 * Intervals on every share (issue 16): the clustered interval of a share
 * needs each prompt's counts (docs/analysis.md "Samples, intervals and real
 * changes"). Three per-prompt counters the reports lacked:
 *
 * - tone per (prompt, assistant): the sentiment report's positive, neutral
 *   and negative shares;
 * - per (prompt, cited domain and site type): the sources report's shares
 *   (answers citing a domain, those naming the brand, citations per site type);
 * - per (competitor, prompt, assistant): each competitor's visibility per
 *   assistant.
 *
 * Like the other per-prompt tables they keep weeks, months and quarters (a
 * day is read from that day's facts), and are filled from the facts stored so far.
 */

const PERIODS = sql`CROSS JOIN LATERAL (VALUES ('week'::text, date_trunc('week', d.day::timestamp)::date),
                                               ('month', date_trunc('month', d.day::timestamp)::date),
                                               ('quarter', date_trunc('quarter', d.day::timestamp)::date)) AS k(period, start)`;

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE rollup_prompt_provider_period
      ADD COLUMN positive integer NOT NULL DEFAULT 0,
      ADD COLUMN neutral integer NOT NULL DEFAULT 0,
      ADD COLUMN negative integer NOT NULL DEFAULT 0`.execute(db);
  await sql`
    WITH d AS (
      SELECT site_id, day, prompt_id, provider, count(*) FILTER (WHERE tone = 'positive') AS positive,
             count(*) FILTER (WHERE tone = 'neutral') AS neutral, count(*) FILTER (WHERE tone = 'negative') AS negative
        FROM answer_facts WHERE tone IS NOT NULL GROUP BY site_id, day, prompt_id, provider),
    s AS (
      SELECT d.site_id, k.period, k.start, d.prompt_id, d.provider, sum(d.positive) AS positive, sum(d.neutral) AS neutral, sum(d.negative) AS negative
        FROM d ${PERIODS} GROUP BY 1, 2, 3, 4, 5)
    UPDATE rollup_prompt_provider_period r SET positive = s.positive, neutral = s.neutral, negative = s.negative
      FROM s WHERE r.site_id = s.site_id AND r.period = s.period AND r.start = s.start AND r.prompt_id = s.prompt_id AND r.provider = s.provider`.execute(
    db,
  );

  await sql`
    CREATE TABLE rollup_prompt_source_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      domain text NOT NULL,
      site_type text NOT NULL,
      prompt_id integer NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      names_brand integer NOT NULL DEFAULT 0,
      citations integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, domain, site_type, prompt_id)
    ) WITH (fillfactor = 70)`.execute(db);
  await sql`
    WITH d AS (
      SELECT f.site_id, f.day, c.domain, c.site_type, f.prompt_id, count(*) AS answers, count(*) FILTER (WHERE f.mentioned) AS names_brand, sum(c.n) AS citations
        FROM answer_facts f
       CROSS JOIN LATERAL (SELECT x->>'domain' AS domain, x->>'siteType' AS site_type, count(*) AS n
                             FROM jsonb_array_elements(f.citations) x WHERE x->>'domain' <> '' GROUP BY 1, 2) c
       GROUP BY 1, 2, 3, 4, 5)
    INSERT INTO rollup_prompt_source_period (site_id, period, start, domain, site_type, prompt_id, answers, names_brand, citations)
    SELECT d.site_id, k.period, k.start, d.domain, d.site_type, d.prompt_id, sum(d.answers), sum(d.names_brand), sum(d.citations)
      FROM d ${PERIODS} GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`.execute(db);

  await sql`
    CREATE TABLE rollup_prompt_provider_competitor_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      competitor_id integer NOT NULL,
      prompt_id integer NOT NULL,
      provider text NOT NULL,
      mentioned integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, competitor_id, prompt_id, provider)
    ) WITH (fillfactor = 70)`.execute(db);
  await sql`
    WITH d AS (
      SELECT f.site_id, f.day, c.id AS competitor_id, f.prompt_id, f.provider, count(*) AS mentioned
        FROM answer_facts f CROSS JOIN LATERAL (SELECT DISTINCT unnest(f.competitors_named) AS id) c
       GROUP BY 1, 2, 3, 4, 5)
    INSERT INTO rollup_prompt_provider_competitor_period (site_id, period, start, competitor_id, prompt_id, provider, mentioned)
    SELECT d.site_id, k.period, k.start, d.competitor_id, d.prompt_id, d.provider, sum(d.mentioned)
      FROM d ${PERIODS} GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`.execute(db);
  await sql`ANALYZE rollup_prompt_provider_period, rollup_prompt_source_period, rollup_prompt_provider_competitor_period`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DROP TABLE rollup_prompt_provider_competitor_period;
    DROP TABLE rollup_prompt_source_period;
    ALTER TABLE rollup_prompt_provider_period DROP COLUMN positive, DROP COLUMN neutral, DROP COLUMN negative;
  `.execute(db);
}
