import { Kysely, PostgresDialect, CamelCasePlugin, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.ts';

// int8 (bigint) columns hold micro-dollars and counts, all far below 2^53:
// read them as numbers, not strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number.parseInt(v, 10));
// numeric is used for sums and averages in reports; same reasoning.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => Number.parseFloat(v));
// Dates (not timestamps) stay 'YYYY-MM-DD' strings: periods are calendar days, not instants.
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

export type Db = Kysely<Database>;

/** Where a query runs: the pool, or a transaction the caller opened. */
export type Executor = Db | Transaction<Database>;

const pools = new WeakMap<Db, pg.Pool>();

export function createDb(databaseUrl: string, options: { max?: number; statementTimeoutMs?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    // Postgres down or unreachable: fail in seconds (the API answers 503) rather than wait for ever.
    connectionTimeoutMillis: 5_000,
    ...(options.statementTimeoutMs !== undefined && { statement_timeout: options.statementTimeoutMs }),
  });
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  /*
   * Nor one that loses it while checked out with no statement running (a
   * transaction between two statements, Postgres stopped): pg emits 'error'
   * on the client itself, where nobody listens, and the worker died of it.
   * The next statement on that client fails on its own, and the pool drops
   * the client when it is released.
   */
  pool.on('connect', (client) => client.on('error', () => {}));
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  pools.set(db, pool);
  return db;
}

/**
 * Runs a named (server-side prepared) statement: Postgres plans it once per
 * connection instead of on every call. Only for hot paths whose SQL is fixed,
 * since each name holds a plan on every pooled connection.
 */
export async function preparedQuery<Row extends object>(db: Db, name: string, text: string, values: unknown[]): Promise<Row[]> {
  const pool = pools.get(db);
  if (!pool) throw new Error('preparedQuery needs a Db made by createDb');
  const result = await pool.query<Row>({ name, text, values });
  return result.rows;
}
