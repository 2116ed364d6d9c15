import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knownError, ServiceUnavailableError } from '../../src/errors.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * A pooled connection that Postgres drops while a transaction holds it
 * between two statements (the server stopped or restarted; here its backend
 * is terminated): the process lives on, the transaction's next statement
 * fails as "unavailable" (503), and the pool serves new statements.
 */

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app?.close());

describe('a connection lost while checked out', () => {
  it('fails the transaction as unavailable without ending the process, and the pool recovers', async () => {
    const db = app.ctx.db;
    const failure = await db
      .transaction()
      .execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(trx);
        // Terminated from another connection while this one sits idle in its transaction.
        await sql`SELECT pg_terminate_backend(${rows[0]!.pid})`.execute(db);
        await new Promise((r) => setTimeout(r, 300));
        await sql`SELECT 1`.execute(trx);
      })
      .then(
        () => null,
        (err: unknown) => err,
      );
    expect(failure).toBeInstanceOf(Error);
    expect(knownError(failure)).toBeInstanceOf(ServiceUnavailableError);
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(db);
    expect(rows).toEqual([{ one: 1 }]);
  });
});
