import { sql, type Kysely } from 'kysely';

/**
 * Samples (issue 16): a scan may ask each prompt up to five times per
 * assistant. An answer is unique per (scan, prompt, provider, sample);
 * answers stored before are sample 1.
 *
 * The latest-answer rollup keeps, besides the latest answer, the scan it
 * came from and how many of that scan's samples of the (prompt, assistant)
 * were asked, answered, and named or cited the brand; the prompt summary
 * sums them over the assistants (the prompt list's consistency sort and
 * filter). A per (prompt, assistant, period) counter table gives the
 * reports' per-assistant intervals their spread over prompts; like the
 * other per-prompt tables it keeps weeks, months and quarters (a day is read
 * from that day's facts). Everything is filled from the facts stored so far.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    ALTER TABLE answers ADD COLUMN sample smallint NOT NULL DEFAULT 1 CHECK (sample BETWEEN 1 AND 5);
    ALTER TABLE answers ADD CONSTRAINT answers_scan_prompt_provider_sample_key UNIQUE (scan_id, prompt_id, provider, sample);
    ALTER TABLE answers DROP CONSTRAINT answers_scan_id_prompt_id_provider_key;

    ALTER TABLE rollup_prompt_latest
      ADD COLUMN scan_id integer NOT NULL DEFAULT 0,
      ADD COLUMN samples integer NOT NULL DEFAULT 1,
      ADD COLUMN answered integer NOT NULL DEFAULT 0,
      ADD COLUMN named integer NOT NULL DEFAULT 0;
    UPDATE rollup_prompt_latest l
       SET scan_id = a.scan_id, samples = 1,
           answered = CASE WHEN l.verdict = 'failed' THEN 0 ELSE 1 END,
           named = CASE WHEN l.verdict IN ('named', 'cited') THEN 1 ELSE 0 END
      FROM answers a WHERE a.id = l.answer_id;

    ALTER TABLE rollup_prompt_summary
      ADD COLUMN answered integer NOT NULL DEFAULT 0,
      ADD COLUMN named integer NOT NULL DEFAULT 0,
      -- named / answered over the assistants' latest samples; null when none answered.
      ADD COLUMN consistency real;
    UPDATE rollup_prompt_summary s
       SET answered = x.answered, named = x.named, consistency = CASE WHEN x.answered > 0 THEN x.named::real / x.answered END
      FROM (SELECT prompt_id, sum(answered)::int AS answered, sum(named)::int AS named FROM rollup_prompt_latest GROUP BY prompt_id) x
     WHERE x.prompt_id = s.prompt_id;
    CREATE INDEX rollup_prompt_summary_consistency_idx ON rollup_prompt_summary (site_id, consistency, prompt_id);

    CREATE TABLE rollup_prompt_provider_period (
      site_id integer NOT NULL,
      period text NOT NULL CHECK (period IN ('week', 'month', 'quarter')),
      start date NOT NULL,
      prompt_id integer NOT NULL,
      provider text NOT NULL,
      answers integer NOT NULL DEFAULT 0,
      failed integer NOT NULL DEFAULT 0,
      mentioned integer NOT NULL DEFAULT 0,
      own_cited integer NOT NULL DEFAULT 0,
      competitor_mentions integer NOT NULL DEFAULT 0,
      PRIMARY KEY (site_id, period, start, prompt_id, provider)
    ) WITH (fillfactor = 70);

    WITH d AS (
      SELECT site_id, day, prompt_id, provider, count(*) AS answers, count(*) FILTER (WHERE verdict = 'failed') AS failed,
             count(*) FILTER (WHERE mentioned) AS mentioned, count(*) FILTER (WHERE own_cited) AS own_cited,
             coalesce(sum(cardinality(competitors_named)), 0) AS competitor_mentions
        FROM answer_facts GROUP BY site_id, day, prompt_id, provider)
    INSERT INTO rollup_prompt_provider_period (site_id, period, start, prompt_id, provider, answers, failed, mentioned, own_cited, competitor_mentions)
    SELECT d.site_id, k.period, k.start, d.prompt_id, d.provider, sum(d.answers), sum(d.failed), sum(d.mentioned), sum(d.own_cited), sum(d.competitor_mentions)
      FROM d CROSS JOIN LATERAL (VALUES ('week'::text, date_trunc('week', d.day::timestamp)::date),
                                        ('month', date_trunc('month', d.day::timestamp)::date),
                                        ('quarter', date_trunc('quarter', d.day::timestamp)::date)) AS k(period, start)
     GROUP BY d.site_id, k.period, k.start, d.prompt_id, d.provider
     ORDER BY d.site_id, k.period, k.start, d.prompt_id, d.provider;
    ANALYZE rollup_prompt_provider_period;
  `.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    DROP TABLE rollup_prompt_provider_period;
    DROP INDEX rollup_prompt_summary_consistency_idx;
    ALTER TABLE rollup_prompt_summary DROP COLUMN answered, DROP COLUMN named, DROP COLUMN consistency;
    ALTER TABLE rollup_prompt_latest DROP COLUMN scan_id, DROP COLUMN samples, DROP COLUMN answered, DROP COLUMN named;
    DELETE FROM answers WHERE sample > 1;
    ALTER TABLE answers ADD CONSTRAINT answers_scan_id_prompt_id_provider_key UNIQUE (scan_id, prompt_id, provider);
    ALTER TABLE answers DROP CONSTRAINT answers_scan_prompt_provider_sample_key;
    ALTER TABLE answers DROP COLUMN sample;
  `.execute(db);
}
