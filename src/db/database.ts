import { createHash } from 'node:crypto';
import {
  CamelCasePlugin,
  CompiledQuery,
  Kysely,
  PostgresDialect,
  sql,
  type QueryResult,
  type RawBuilder,
  type Transaction,
} from 'kysely';
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

/** Where a Db made by createDb keeps its pg pool, for preparedQuery: on the Db itself, so no module holds a registry. */
const POOL = Symbol('pg pool');
type PooledDb = Db & { readonly [POOL]?: pg.Pool };

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
  pool.on('connect', (client) => {
    client.on('error', () => {});
    prepareMarked(client);
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins: [new CamelCasePlugin()] });
  return Object.defineProperty(db, POOL, { value: pool });
}

/**
 * Runs a named (server-side prepared) statement: Postgres plans it once per
 * connection instead of on every call. Only for hot paths whose SQL is fixed,
 * since each name holds a plan on every pooled connection.
 */
export async function preparedQuery<Row extends object>(
  db: Db,
  name: string,
  text: string,
  values: unknown[],
): Promise<Row[]> {
  const pool = (db as PooledDb)[POOL];
  if (!pool) throw new Error('preparedQuery needs a Db made by createDb');
  const result = await pool.query<Row>({ name, text, values });
  return result.rows;
}

/** The comment that makes a statement a named one (see `prepared`). */
const PREPARED_MARK = '/* prepared */ ';
const statementNames = new Map<string, string>();

/**
 * A statement Postgres keeps parsed and planned on each connection, also
 * inside a transaction (where preparedQuery cannot reach): its text starts
 * with a mark, and the pool's clients send marked texts as named statements,
 * named by a hash of the text. For hot statements whose text is fixed (values
 * as parameters, lists as arrays): a batch of the scan's answer writer paid
 * more to parse and plan its statements than to run them when batches were
 * small. Postgres plans the first five runs for their values, then keeps one
 * generic plan when that is no costlier.
 */
export function prepared(statement: RawBuilder<unknown>): RawBuilder<unknown> {
  return sql`${sql.raw(PREPARED_MARK)}${statement}`;
}

/** Where a value of a statement compiled once goes (see `compiledOnce`). */
class Slot {
  readonly index: number;
  constructor(index: number) {
    this.index = index;
  }
}

/**
 * A statement of fixed text built and compiled once per process, then run
 * with new values: `build` gets a placeholder for each argument and must use
 * them only as values of the statement (never look into them), so the text
 * is the same whatever the values. For hot statements made of many parts
 * (the rollup statement: a dozen inserts), whose building and compiling
 * cost the worker more per batch than sending it. Combine with `prepared`.
 */
export function compiledOnce<Args extends unknown[]>(
  build: (...args: Args) => RawBuilder<unknown>,
): (db: Executor, ...args: Args) => Promise<QueryResult<unknown>> {
  let compiled: { sql: string; parameters: readonly unknown[] } | null = null;
  return (db, ...args) => {
    compiled ??= build(...(args.map((_, i) => new Slot(i)) as Args)).compile(db);
    const parameters = compiled.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    return db.executeQuery(CompiledQuery.raw(compiled.sql, parameters));
  };
}

function prepareMarked(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
  const plain = client.query.bind(client);
  // Kysely calls query(text, values); anything else (a cursor, a config object) passes through.
  client.query = ((text: unknown, values?: unknown, ...rest: unknown[]) => {
    if (typeof text !== 'string' || !text.startsWith(PREPARED_MARK) || !Array.isArray(values) || rest.length > 0)
      return (plain as (...args: unknown[]) => unknown)(text, values, ...rest);
    let name = statementNames.get(text);
    if (name === undefined) {
      name = `p_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;
      statementNames.set(text, name);
    }
    return query({ name, text, values });
  }) as typeof client.query;
}
