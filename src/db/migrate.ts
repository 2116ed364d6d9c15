import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileMigrationProvider, Migrator, type MigrationResultSet } from 'kysely';
import type { Db } from './database.ts';

export const MIGRATIONS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

export function createMigrator(db: Db): Migrator {
  return new Migrator({ db, provider: new FileMigrationProvider({ fs, path, migrationFolder: MIGRATIONS_DIR }) });
}

/** Runs every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Db): Promise<string[]> {
  const { error, results }: MigrationResultSet = await createMigrator(db).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const cause = error instanceof Error ? error.message : String(error);
    throw new Error(`migration ${failed?.migrationName ?? '(unknown)'} failed: ${cause}`, { cause: error });
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Creates the database named in the URL when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created meanwhile by another process
      });
    }
  } finally {
    await client.end();
  }
}

/** Creates the database when missing and runs every pending migration on a connection of its own. */
export async function migrate(databaseUrl: string): Promise<string[]> {
  await ensureDatabase(databaseUrl);
  const { createDb } = await import('./database.ts');
  const db = createDb(databaseUrl, { max: 1 });
  try {
    return await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
