-- A prototype, run by hand (bench/README.md, "Twelfth session: where the floor is"): would keeping a prompt's cited
-- domains as arrays, one row per (site, period, start, prompt), write faster than rollup_prompt_source_period's row
-- per (site, period, start, domain, site type, prompt)?
--
--   createdb -h 127.0.0.1 -U postgres proto
--   pg_dump -h 127.0.0.1 -U postgres -d sightline_bench_scan -t rollup_prompt_source_period --schema-only | psql -h 127.0.0.1 -U postgres -d proto
--   psql -h 127.0.0.1 -U postgres -d sightline_bench_scan -c "\copy (SELECT 0, period, start, domain, site_type, prompt_id,
--     answers, names_brand, citations FROM rollup_prompt_source_period WHERE site_id = (SELECT max(site_id) FROM
--     rollup_prompt_source_period)) TO '/tmp/src.csv' csv"        (one bench/scan site: one scan of 500 answers)
--   psql -h 127.0.0.1 -U postgres -d proto -f bench/prompt-source-arrays.sql
--   then, for site = 1, 2, ...: SELECT run_narrow(site, false), run_arr(site, false), run_narrow(site, true), run_arr(site, true);
--
-- Each call writes the scan's rows in eight batches of about 62 prompts (as the answer writer's batches) and returns
-- milliseconds: `false` into rows that are new (a plain INSERT, as the batch statement does for new rows), `true` the
-- same rows again into the rows now there (ON CONFLICT, counters added; arrays merged).
ALTER TABLE rollup_prompt_source_period RENAME TO narrow;
CREATE TABLE arr (site_id int, period text, start date, prompt_id int, domains text[], site_types text[], answers int[],
                  names_brand int[], citations int[], PRIMARY KEY (site_id, period, start, prompt_id));
CREATE TABLE src (site_id int, period text, start date, domain text, site_type text, prompt_id int, answers int, names_brand int, citations int);
\copy src FROM '/tmp/src.csv' csv

CREATE OR REPLACE FUNCTION run_narrow(site int, upsert bool) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); g int;
BEGIN
  FOR g IN 0..7 LOOP
    IF upsert THEN
      INSERT INTO narrow AS t SELECT site, period, start, domain, site_type, prompt_id, answers, names_brand, citations FROM src WHERE prompt_id % 8 = g
       ORDER BY period, start, domain, site_type, prompt_id
      ON CONFLICT (site_id, period, start, domain, site_type, prompt_id) DO UPDATE SET answers = t.answers + excluded.answers,
        names_brand = t.names_brand + excluded.names_brand, citations = t.citations + excluded.citations;
    ELSE
      INSERT INTO narrow SELECT site, period, start, domain, site_type, prompt_id, answers, names_brand, citations FROM src WHERE prompt_id % 8 = g
       ORDER BY period, start, domain, site_type, prompt_id;
    END IF;
  END LOOP;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;

CREATE OR REPLACE FUNCTION run_arr(site int, upsert bool) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE t0 timestamptz := clock_timestamp(); g int;
BEGIN
  FOR g IN 0..7 LOOP
    IF upsert THEN
      INSERT INTO arr AS t SELECT site, period, start, prompt_id, array_agg(domain ORDER BY domain, site_type), array_agg(site_type ORDER BY domain, site_type),
          array_agg(answers ORDER BY domain, site_type), array_agg(names_brand ORDER BY domain, site_type), array_agg(citations ORDER BY domain, site_type)
        FROM src WHERE prompt_id % 8 = g GROUP BY period, start, prompt_id ORDER BY period, start, prompt_id
      ON CONFLICT (site_id, period, start, prompt_id) DO UPDATE SET (domains, site_types, answers, names_brand, citations) = (
        SELECT array_agg(d ORDER BY d, s), array_agg(s ORDER BY d, s), array_agg(a ORDER BY d, s), array_agg(n ORDER BY d, s), array_agg(c ORDER BY d, s)
          FROM (SELECT d, s, sum(a)::int AS a, sum(n)::int AS n, sum(c)::int AS c FROM (
                  SELECT * FROM unnest(t.domains, t.site_types, t.answers, t.names_brand, t.citations) AS u(d, s, a, n, c)
                  UNION ALL
                  SELECT * FROM unnest(excluded.domains, excluded.site_types, excluded.answers, excluded.names_brand, excluded.citations) AS v(d, s, a, n, c)) x
                 GROUP BY d, s) y);
    ELSE
      INSERT INTO arr SELECT site, period, start, prompt_id, array_agg(domain ORDER BY domain, site_type), array_agg(site_type ORDER BY domain, site_type),
          array_agg(answers ORDER BY domain, site_type), array_agg(names_brand ORDER BY domain, site_type), array_agg(citations ORDER BY domain, site_type)
        FROM src WHERE prompt_id % 8 = g GROUP BY period, start, prompt_id ORDER BY period, start, prompt_id;
    END IF;
  END LOOP;
  RETURN extract(epoch FROM clock_timestamp() - t0) * 1000;
END $$;
