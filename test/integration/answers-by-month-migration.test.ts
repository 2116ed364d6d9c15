import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { databaseBefore, type MigrationDb } from '../helpers/migration-db.ts';

/**
 * Migration 20261127T1300 (answers by month) runs on databases that hold
 * answers: up copies every answer, fact and ledger entry into the
 * partitioned tables unchanged, each into its scan's month; down puts them
 * back into one table each with the same schema as before.
 */

const MIGRATION = '20261127T1300_answers_by_month';
let m: MigrationDb;
let db: Db;

/** Every row of the three tables, as text, sorted: equal snapshots mean nothing was lost or changed. */
async function snapshot() {
  const rows = async (query: ReturnType<typeof sql<{ r: string }>>) =>
    (await query.execute(db)).rows.map((x) => x.r).sort();
  return {
    answers: await rows(
      sql`SELECT (id, scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, searches, cost_micros, error, sample)::text AS r FROM answers`,
    ),
    facts: await rows(
      sql`SELECT (answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_key)::text AS r FROM answer_facts`,
    ),
    ledger: await rows(sql`SELECT l::text AS r FROM ledger_entries l`),
  };
}

/** Columns, constraints and indexes of the tables the migration touches. */
async function shape() {
  const { rows } = await sql<{ r: string }>`
    SELECT format('%s.%s %s %s', table_name, column_name, data_type, is_nullable) AS r FROM information_schema.columns
     WHERE table_schema = 'public' AND table_name IN ('answers', 'answer_facts', 'ledger_entries', 'orgs')
    UNION ALL SELECT format('%s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) FROM pg_constraint
     WHERE conrelid IN ('answers'::regclass, 'answer_facts'::regclass, 'ledger_entries'::regclass, 'rollup_model_period'::regclass)
    UNION ALL SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('answers', 'answer_facts', 'ledger_entries')
    ORDER BY 1`.execute(db);
  return rows.map((r) => r.r);
}

beforeAll(async () => {
  m = await databaseBefore(MIGRATION);
  db = m.db;
  // Three scans in three months (one started a minute before a month ended), answers with facts, each charged.
  await sql`
    INSERT INTO orgs (name) VALUES ('Before A'), ('Before B');
    INSERT INTO sites (org_id, name, url, domain) SELECT id, 'S' || id, 'https://s' || id || '.com', 's' || id || '.com' FROM orgs;
    INSERT INTO prompts (site_id, text, status) SELECT s.id, 'Prompt ' || g, 'active' FROM sites s, generate_series(1, 3) g;
    INSERT INTO scans (org_id, site_id, status, trigger, created_at)
      SELECT s.org_id, s.id, 'done', 'import', t FROM sites s, unnest(ARRAY['2026-08-31 23:59+00'::timestamptz, '2026-09-15 10:00+00', now()]) t;
    INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, cost_micros, sample)
      SELECT sc.id, sc.site_id, p.id, pr, 'm', sc.created_at + interval '2 hours', (sc.created_at + interval '2 hours')::date, 'text ' || p.id, 1000, smp
        FROM scans sc JOIN prompts p ON p.site_id = sc.site_id, unnest(ARRAY['openai', 'anthropic']) pr, generate_series(1, 2) smp;
    INSERT INTO answer_facts (answer_id, site_id, prompt_id, provider, day, verdict, mentioned, own_cited, brand_key)
      SELECT id, site_id, prompt_id, provider, day, CASE WHEN id % 2 = 0 THEN 'named' ELSE 'missing' END, id % 2 = 0, false, 'k' FROM answers;
    INSERT INTO ledger_entries (org_id, kind, amount_micros, balance_after_micros, site_id, scan_id, answer_id, description)
      SELECT s.org_id, 'charge', -a.cost_micros, 0, a.site_id, a.scan_id, a.id, 'answer' FROM answers a JOIN scans s ON s.id = a.scan_id;
    INSERT INTO rollup_model_period (site_id, period, start, provider, model, answers) SELECT id, 'month', '2026-09-01', 'openai', 'm', 3 FROM sites;
  `.execute(db);
});

afterAll(async () => {
  await m?.drop();
});

describe(`migration ${MIGRATION}`, () => {
  it('keeps every answer, fact and ledger entry up and down, and down restores the schema', async () => {
    const before = await snapshot();
    const shapeBefore = await shape();
    expect(before.answers).toHaveLength(72);

    await m.migrateTo(MIGRATION);
    expect(await snapshot()).toEqual(before);
    // Each answer in its scan's month: the one started at 23:59 on 31 August, asked on 1 September, in August.
    const { rows } = await sql<{ part: string; n: number }>`
      SELECT a.tableoid::regclass::text AS part, count(*)::int AS n FROM answers a JOIN scans s ON s.id = a.scan_id
       WHERE a.month = date_trunc('month', s.created_at AT TIME ZONE 'UTC')::date GROUP BY 1 ORDER BY 1`.execute(db);
    expect(rows.reduce((n, r) => n + r.n, 0)).toBe(72);
    expect(rows.map((r) => r.part)).toEqual(expect.arrayContaining(['answers_y2026m08', 'answers_y2026m09']));
    const late = await sql<{
      day: string;
      month: string;
    }>`SELECT DISTINCT day::text, month::text FROM answers WHERE asked_at < '2026-09-02'`.execute(db);
    expect(late.rows).toEqual([{ day: '2026-09-01', month: '2026-08-01' }]);
    // Facts sit in the same months as their answers.
    const facts = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month`.execute(
      db,
    );
    expect(facts.rows[0]?.n).toBe(72);
    // New answers take ids after the copied ones.
    const next = await sql<{ id: number }>`
      INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, month)
      SELECT id, site_id, (SELECT min(id) FROM prompts WHERE site_id = scans.site_id), 'gemini', 'm', now(), current_date, date_trunc('month', created_at AT TIME ZONE 'UTC')::date
        FROM scans ORDER BY id DESC LIMIT 1 RETURNING id`.execute(db);
    expect(next.rows[0]?.id).toBeGreaterThan(Math.max(...before.answers.map((r) => Number(r.slice(1).split(',')[0]))));
    await sql`DELETE FROM answers WHERE provider = 'gemini'`.execute(db);
    // Rollups now follow their site.
    const fk = await sql<{
      n: number;
    }>`SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = 'rollup_model_period'::regclass AND contype = 'f'`.execute(
      db,
    );
    expect(fk.rows[0]?.n).toBe(1);

    await m.migrateTo(m.previous);
    expect(await snapshot()).toEqual(before);
    expect(await shape()).toEqual(shapeBefore);

    await m.migrateTo(MIGRATION);
    expect(await snapshot()).toEqual(before);
  });
});
