import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.ts';
import { databaseBefore, type MigrationDb } from '../helpers/migration-db.ts';

/**
 * Migration 20261201T1000 (answers.raw and answers.citations as json) runs
 * on databases that hold answers in several months' partitions: up keeps
 * every raw response and citation list (the same JSON values; stored nulls
 * stay null, the default stays an empty list) and the columns' lz4
 * compression on the parent and every partition; a response stored
 * afterwards keeps its text byte for byte; down gives jsonb back with the
 * same values.
 */

const MIGRATION = '20261201T1000_answer_json_columns';
let m: MigrationDb;
let db: Db;

/** Each answer's raw response and citations as JSON values (jsonb's text, so json and jsonb compare), by id. */
async function values(): Promise<string[]> {
  const { rows } = await sql<{
    r: string;
  }>`SELECT id || ' ' || coalesce(raw::text::jsonb::text, 'NULL') || ' ' || citations::text::jsonb::text AS r FROM answers ORDER BY id`.execute(
    db,
  );
  return rows.map((x) => x.r);
}

/** The two columns' type, compression and default on the parent and each partition. */
async function jsonColumns(): Promise<string[]> {
  const { rows } = await sql<{ r: string }>`
    SELECT format('%s %s %s %s %s', a.attrelid::regclass, a.attname, format_type(a.atttypid, a.atttypmod),
                  coalesce(pg_get_expr(d.adbin, d.adrelid), '-'), a.attcompression) AS r
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
     WHERE a.attname IN ('raw', 'citations') AND (a.attrelid = 'answers'::regclass
           OR a.attrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = 'answers'::regclass))
     ORDER BY 1`.execute(db);
  return rows.map((x) => x.r);
}

beforeAll(async () => {
  m = await databaseBefore(MIGRATION);
  db = m.db;
  // Scans in two months, answers with a raw response, one without.
  await sql`
    INSERT INTO orgs (name) VALUES ('Raw');
    INSERT INTO sites (org_id, name, url, domain) SELECT id, 'S', 'https://s.com', 's.com' FROM orgs;
    INSERT INTO prompts (site_id, text, status) SELECT s.id, 'Prompt ' || g, 'active' FROM sites s, generate_series(1, 2) g;
    INSERT INTO scans (org_id, site_id, status, trigger, created_at)
      SELECT s.org_id, s.id, 'done', 'import', t FROM sites s, unnest(ARRAY['2026-09-15 10:00+00'::timestamptz, now()]) t;
    SELECT ensure_answer_month(created_at::date) FROM scans;
    INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, citations, raw, month)
      SELECT sc.id, sc.site_id, p.id, 'openai', 'm', sc.created_at, sc.created_at::date, 'text',
             jsonb_build_array(jsonb_build_object('url', 'https://x.com/' || p.id, 'title', 'X ✓')),
             CASE WHEN p.text = 'Prompt 1' THEN jsonb_build_object('id', 'r' || p.id, 'output', jsonb_build_array(jsonb_build_object('text', 'Ünïcode ✓', 'n', 1.50))) END,
             date_trunc('month', sc.created_at AT TIME ZONE 'UTC')::date
        FROM scans sc JOIN prompts p ON p.site_id = sc.site_id;
  `.execute(db);
});

afterAll(async () => {
  await m?.drop();
});

describe(`migration ${MIGRATION}`, () => {
  it('keeps every raw response and citation list and their compression up and down, and stores new ones byte for byte', async () => {
    const before = await values();
    expect(before.filter((r) => r.includes('NULL'))).toHaveLength(2);
    expect((await jsonColumns()).every((c) => / jsonb .* l$/.test(c))).toBe(true);

    await m.migrateTo(MIGRATION);
    expect(await values()).toEqual(before);
    const columns = await jsonColumns();
    expect(columns.length).toBeGreaterThanOrEqual(6);
    expect(columns.filter((c) => c.includes(' raw ')).every((c) => c.endsWith(' raw json - l'))).toBe(true);
    expect(
      columns.filter((c) => c.includes(' citations ')).every((c) => c.endsWith(" citations json '[]'::json l")),
    ).toBe(true);
    // An answer stored without citations gets the default, an empty list.
    await sql`
      INSERT INTO answers (scan_id, site_id, prompt_id, provider, model, asked_at, day, text, month, sample)
      SELECT scan_id, site_id, prompt_id, provider, model, asked_at, day, text, month, 2 FROM answers ORDER BY id LIMIT 1`.execute(
      db,
    );
    expect((await values()).at(-1)).toMatch(/ NULL \[\]$/);

    // A response as it came: spacing, key order and duplicates, number spelling kept.
    const text = '{"b": 1.50,  "a":[ ],"a":"x"}';
    const { rows } = await sql<{ raw: string; text: string }>`
      UPDATE answers SET raw = ${text}::json WHERE raw IS NOT NULL AND month = (SELECT max(month) FROM answers)
      RETURNING raw::text AS text`.execute(db);
    expect(rows.map((r) => r.text)).toEqual([text]);

    await m.migrateTo(m.previous);
    expect((await jsonColumns()).every((c) => / jsonb .* l$/.test(c))).toBe(true);
    expect((await jsonColumns()).filter((c) => c.includes(' citations ')).every((c) => c.includes("'[]'::jsonb"))).toBe(
      true,
    );
    const after = await values();
    expect(after.filter((r) => r.includes('NULL'))).toHaveLength(3);
    expect(after.find((r) => r.includes('"b"'))).toMatch(/^\d+ \{"a": "x", "b": 1.50\} \[\{"url": /);
    expect(after.slice(0, before.length).filter((r) => !r.includes('"b"'))).toEqual(
      before.filter((_, i) => !after[i]?.includes('"b"')),
    );
  });
});
