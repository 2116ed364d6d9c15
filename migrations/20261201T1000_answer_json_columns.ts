import { sql, type Kysely } from 'kysely';

/**
 * answers.raw (the provider's response) and answers.citations (the
 * citations as the provider listed them) become `json`, from `jsonb`: each is
 * stored as the text the worker sends, checked but not converted into
 * jsonb's binary form. Building jsonb was a full parse and build of about
 * 5 KB an answer in the database, most of the answer batch's JSON parameter
 * (issue 30, bench/README.md "scan: database work per answer", third
 * round). No SQL reads either with jsonb operators: raw is kept so an answer
 * can be parsed again, citations so it can be analysed again (reanalysis
 * and the names preview read them into the application), and `json` keeps
 * the response byte for byte (spacing, key order, number spelling) where
 * jsonb normalised it. Reading them back costs Postgres less too (no
 * conversion to text).
 *
 * The type change rewrites every month's partition once (values stored as
 * jsonb come back as jsonb's text). The columns keep their lz4 compression
 * (migration 20261129T1000), set again on the parent and each partition.
 */

async function partitions(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{
    name: string;
  }>`SELECT inhrelid::regclass::text AS name FROM pg_inherits WHERE inhparent = 'answers'::regclass`.execute(db);
  return rows.map((r) => r.name);
}

async function setType(db: Kysely<any>, type: 'json' | 'jsonb'): Promise<void> {
  const t = sql.raw(type);
  await sql`
    ALTER TABLE answers ALTER COLUMN citations DROP DEFAULT,
      ALTER COLUMN citations TYPE ${t} USING citations::${t},
      ALTER COLUMN citations SET DEFAULT '[]'::${t},
      ALTER COLUMN raw TYPE ${t} USING raw::${t}`.execute(db);
  for (const table of ['answers', ...(await partitions(db))])
    await sql`ALTER TABLE ${sql.raw(table)} ALTER COLUMN citations SET COMPRESSION lz4, ALTER COLUMN raw SET COMPRESSION lz4`.execute(
      db,
    );
}

export async function up(db: Kysely<any>): Promise<void> {
  await setType(db, 'json');
}

/** Back to jsonb: a stored text jsonb refuses (a `\u0000` escape, which the writer never stores) fails the migration. */
export async function down(db: Kysely<any>): Promise<void> {
  await setType(db, 'jsonb');
}
