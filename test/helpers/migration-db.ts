import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createDb, type Db } from '../../src/db/database.ts';
import { createMigrator } from '../../src/db/migrate.ts';

/**
 * A database of its own for a test of one migration on data: made empty
 * (not from the migrated template), migrated to the migration before the
 * one under test, so the test can store rows as that schema held them,
 * then move up and down across it. `drop` removes it.
 */
export interface MigrationDb {
  db: Db;
  /** The name of the migration just before the one under test. */
  previous: string;
  migrateTo(target: string): Promise<void>;
  drop(): Promise<void>;
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject('adminDatabaseUrl') });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export async function databaseBefore(migration: string): Promise<MigrationDb> {
  const name = `sightline_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(inject('adminDatabaseUrl'));
  url.pathname = `/${name}`;
  const db = createDb(url.toString(), { max: 1 });
  const migrateTo = async (target: string) => {
    const { error } = await createMigrator(db).migrateTo(target);
    if (error) throw error;
  };
  const all = (await createMigrator(db).getMigrations()).map((m) => m.name);
  if (!all.includes(migration)) throw new Error(`No migration ${migration}`);
  const previous = all[all.indexOf(migration) - 1] as string;
  await migrateTo(previous);
  return {
    db,
    previous,
    migrateTo,
    async drop() {
      await db.destroy();
      await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}
