import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

/**
 * Builds one migrated template database per test run; each test file clones
 * it (CREATE DATABASE ... TEMPLATE), which takes milliseconds instead of
 * re-running migrations. The name carries the pid so parallel runs on one
 * machine never share a template.
 */
const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const TEMPLATE = `sightline_tpl_${process.pid}`;

function urlFor(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await admin(async (c) => {
    // Leftovers of runs that were killed before their teardown.
    const stale = await c.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'sightline_tpl_%' OR datname LIKE 'sightline_t_%'",
    );
    for (const { datname } of stale.rows) {
      const pid = Number(datname.split('_')[2]);
      if (datname.startsWith('sightline_tpl_') && pid && pidAlive(pid)) continue;
      if (datname.startsWith('sightline_t_') && pid && pidAlive(pid)) continue;
      await c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    }
    await c.query(`CREATE DATABASE "${TEMPLATE}"`);
  });
  const db = createDb(urlFor(TEMPLATE), { max: 2 });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  project.provide('templateDatabase', TEMPLATE);
  project.provide('adminDatabaseUrl', ADMIN_URL);
  return async () => {
    await admin((c) => c.query(`DROP DATABASE IF EXISTS "${TEMPLATE}" WITH (FORCE)`));
  };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

declare module 'vitest' {
  export interface ProvidedContext {
    templateDatabase: string;
    adminDatabaseUrl: string;
  }
}
