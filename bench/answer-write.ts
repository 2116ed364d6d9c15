/**
 * bench/answer-write: what storing a scan's answers costs PostgreSQL, taken
 * apart (issue 30, item 2). One real one-provider scan of 500 prompts against
 * the simulator gives 500 answers as a scan stores them; each round then
 * stores those same answers again for a new site and scan, in the answer
 * writer's batches of 100 (analysed off-thread, then storeAnswers, then
 * settle), one batch at a time on ONE connection, so that connection's
 * backend is all the database work there is to count:
 * - CPU of the backend per answer (utime + stime from /proc), median round;
 * - WAL bytes and records per answer, from `pg_stat_wal` before and after
 *   (the server's: only meaningful on a quiet server) and from the statements'
 *   own EXPLAIN (ANALYZE, WAL) when BENCH_EXPLAIN=1;
 * - with BENCH_EXPLAIN=1, auto_explain on that connection (log_level notice,
 *   so the plans come back to this process): per statement kind, its time,
 *   WAL, and the time of every trigger (foreign-key checks) it fired.
 * Rounds default to 7 (BENCH_ROUNDS), batches to 100 answers (BENCH_BATCH). Every round is a new site, as in
 * bench/scan: its day, week, month and quarter rollup rows are all new. With
 * BENCH_SAME_SITE=1 every round stores into one site (a site scanned daily:
 * the period rows exist, so most rollup writes are updates). BENCH_WAL=1
 * groups the last round's WAL by relation and record type (pg_walinspect):
 * rows and index entries written per answer, and their bytes. BENCH_PLANS=<file>
 * (with BENCH_EXPLAIN=1) appends every statement's plan there as text.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { createDb } from '../src/db/database.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { runScan } from '../src/domain/scans/run.ts';
import { startScan } from '../src/domain/scans/scans.ts';
import { settle } from '../src/domain/scans/purse-sql.ts';
import { loadBrandBook } from '../src/domain/facts/brand-book.ts';
import { storeAnswers, type NewAnswer } from '../src/domain/facts/answer-store.ts';
import { analyseAnswers } from '../src/domain/facts/answer-facts.ts';
import { runBench } from './lib.ts';
import { answerAgain, backendCpu, benchSite, startSimulator } from './scan-setup.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_write';
const SIM_PORT = 18411;
const PROMPTS = 500;
/**
 * Answers a batch: the answer writer's most (100) by default; BENCH_BATCH=30 is about what bench/scan's writer
 * stores at a time (its batches do not fill in the 50 ms it waits at a few hundred answers a second).
 */
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const EXPLAIN = process.env.BENCH_EXPLAIN === '1';
const SAME_SITE = process.env.BENCH_SAME_SITE === '1';
const WAL = process.env.BENCH_WAL === '1';

interface WalRow {
  relation: string;
  record: string;
  records: number;
  bytes: number;
  fpiBytes: number;
}

/**
 * The WAL a round wrote into this database, from pg_walinspect (PostgreSQL
 * 15; `CREATE EXTENSION pg_walinspect` here, as a superuser): per relation
 * (a TOAST table named by its owner, an index by itself) and record type,
 * records and bytes per answer, full-page images apart (those depend on
 * when the last checkpoint was, not on the statements). Other databases'
 * records are left out: their blocks name another database, and a record
 * without blocks (a commit) counts when its transaction wrote here.
 */
async function walByRelation(db: AppContext['db'], from: string, to: string, answers: number): Promise<WalRow[]> {
  const { rows } = await sql<WalRow>`
    WITH r AS (
      SELECT xid, resource_manager, record_type, record_length, fpi_length,
             substring(block_ref from 'rel [0-9]+/([0-9]+)/[0-9]+')::oid AS db,
             substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS filenode
        FROM pg_get_wal_records_info(${from}::pg_lsn, ${to}::pg_lsn)),
    mine AS (SELECT DISTINCT xid FROM r WHERE db = (SELECT oid FROM pg_database WHERE datname = current_database()) AND xid <> 0),
    named AS (
      SELECT r.*, pg_filenode_relation(0, r.filenode) AS rel FROM r
       WHERE r.db = (SELECT oid FROM pg_database WHERE datname = current_database()) OR (r.db IS NULL AND r.xid IN (SELECT xid FROM mine)))
    SELECT coalesce((SELECT 'toast of ' || o.relname FROM pg_class o WHERE o.reltoastrelid = n.rel), n.rel::regclass::text, CASE WHEN n.filenode IS NULL THEN '(none)' ELSE '(other)' END) AS relation,
           n.resource_manager || '/' || n.record_type AS record,
           round(count(*)::numeric / ${answers}, 2)::float8 AS records,
           round(sum(n.record_length - n.fpi_length)::numeric / ${answers})::float8 AS bytes,
           round(sum(n.fpi_length)::numeric / ${answers})::float8 AS fpi_bytes
      FROM named n GROUP BY 1, 2 ORDER BY 4 DESC`.execute(db);
  return rows;
}

const newSite = (ctx: AppContext, label: string) => benchSite(ctx, 'write', label, PROMPTS);

interface Explained {
  count: number;
  ms: number;
  walBytes: number;
  walRecords: number;
  walFpi: number;
  triggers: Map<string, { ms: number; calls: number }>;
  /** Per table a statement writes (a CTE statement writes many): time, WAL, rows. */
  writes: Map<string, { ms: number; walBytes: number; rows: number }>;
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Actual Total Time'?: number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'WAL Bytes'?: number;
  'WAL Records'?: number;
  'WAL FPI'?: number;
  Plans?: PlanNode[];
}

/** A statement's kind, from its text: the first words, the table it writes. */
function kindOf(query: string): string {
  const q = query.replace(/\s+/g, ' ').trim();
  const m = /^(INSERT INTO \S+|UPDATE \S+|DELETE FROM \S+|SELECT \S+|WITH \S+)/i.exec(q.replace(/^with /i, 'WITH '));
  return (m?.[1] ?? q.slice(0, 40)).replace(/"/g, '');
}

/** The WAL rows per relation: its total records and bytes per answer, then each record type's. */
function walByTable(rows: readonly WalRow[]) {
  const tables = new Map<string, { records: number; bytes: number; fpiBytes: number; kinds: Record<string, number> }>();
  for (const r of rows) {
    const t = tables.get(r.relation) ?? { records: 0, bytes: 0, fpiBytes: 0, kinds: {} };
    t.records = Math.round((t.records + r.records) * 100) / 100;
    t.bytes += r.bytes;
    t.fpiBytes += r.fpiBytes;
    t.kinds[r.record] = r.records;
    tables.set(r.relation, t);
  }
  const total = rows.reduce(
    (a, r) => ({ records: a.records + r.records, bytes: a.bytes + r.bytes, fpiBytes: a.fpiBytes + r.fpiBytes }),
    { records: 0, bytes: 0, fpiBytes: 0 },
  );
  return {
    total: { ...total, records: Math.round(total.records * 10) / 10 },
    ...Object.fromEntries([...tables].sort((a, b) => b[1].bytes - a[1].bytes)),
  };
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const sim = await startSimulator(SIM_PORT);
  const config = loadConfig({
    DATABASE_URL,
    LOG_LEVEL: 'warn',
    ASSISTANTS: 'simulator',
    SIMULATOR_URL: sim.url,
    ASSISTANT_CONCURRENCY: '10',
    REDIS_PREFIX: `bench-write-${process.pid}`,
  });
  const ctx = createContext(config, { role: 'worker', jobTable: loadJobTable, dbPoolSize: 20 });
  // One connection for the measured writes: its backend's CPU is the whole database cost of them.
  const wdb = createDb(DATABASE_URL, { max: 1 });
  const explained = new Map<string, Explained>();
  // createDb keeps its pool to itself: auto_explain's notices are caught on their way out of any client.
  const emit = pg.Client.prototype.emit;
  pg.Client.prototype.emit = function (this: pg.Client, event: string | symbol, ...args: unknown[]) {
    if (event === 'notice') onNotice(args[0] as { message?: string });
    return emit.call(this, event, ...args);
  };
  function onNotice(msg: { message?: string }) {
    if (!EXPLAIN || !msg.message) return;
    if (process.env.BENCH_PLANS) return appendFileSync(process.env.BENCH_PLANS, msg.message + '\n\n');
    const start = msg.message.indexOf('{');
    if (start < 0) return;
    const ms = Number(/duration: ([0-9.]+) ms/.exec(msg.message)?.[1] ?? 0);
    const plan = JSON.parse(msg.message.slice(start)) as {
      'Query Text': string;
      Plan: PlanNode;
      Triggers?: { 'Trigger Name': string; Relation: string; Time: number; Calls: number }[];
    };
    const kind = kindOf(plan['Query Text']);
    const e = explained.get(kind) ?? {
      count: 0,
      ms: 0,
      walBytes: 0,
      walRecords: 0,
      walFpi: 0,
      triggers: new Map(),
      writes: new Map(),
    };
    e.count++;
    e.ms += ms;
    // Data-modifying CTEs run after the top node: their WAL is on their own ModifyTable nodes only.
    const visit = (node: PlanNode) => {
      if (node['Node Type'] === 'ModifyTable') {
        e.walBytes += node['WAL Bytes'] ?? 0;
        e.walRecords += node['WAL Records'] ?? 0;
        e.walFpi += node['WAL FPI'] ?? 0;
        const w = e.writes.get(node['Relation Name'] ?? '?') ?? { ms: 0, walBytes: 0, rows: 0 };
        w.ms += node['Actual Total Time'] ?? 0;
        w.walBytes += node['WAL Bytes'] ?? 0;
        w.rows += (node.Plans?.[0]?.['Actual Rows'] ?? 0) * (node.Plans?.[0]?.['Actual Loops'] ?? 1);
        e.writes.set(node['Relation Name'] ?? '?', w);
        return;
      }
      for (const child of node.Plans ?? []) visit(child);
    };
    visit(plan.Plan);
    for (const t of plan.Triggers ?? []) {
      const name = `${t.Relation}: ${t['Trigger Name'].startsWith('RI_ConstraintTrigger') ? 'FK check' : t['Trigger Name']}`;
      const x = e.triggers.get(name) ?? { ms: 0, calls: 0 };
      x.ms += t.Time;
      x.calls += t.Calls;
      e.triggers.set(name, x);
    }
    explained.set(kind, e);
  }
  const wctx: AppContext = { ...ctx, db: wdb };
  try {
    await migrateToLatest(ctx.db);
    await fetch(`${sim.url}/__sim/script`, { method: 'DELETE' });
    // The answers to store: one real scan's.
    const source = await newSite(ctx, 'source');
    const { scan: sourceScan } = await startScan(ctx, source.site, source.userId, {
      label: 'source',
      providers: ['openai'],
    });
    await runScan(ctx, sourceScan.id);
    const answers = await ctx.db
      .selectFrom('answers')
      .selectAll()
      .where('scanId', '=', sourceScan.id)
      .orderBy('id')
      .execute();
    const promptIndex = new Map(source.promptIds.map((id, i) => [id, i]));
    const { rows: pidRows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(wdb);
    const backend = pidRows[0]!.pid;
    // BENCH_PERF=<file>: the measured backend sampled by perf for the whole run (perf must be installed, and allowed).
    const perf = process.env.BENCH_PERF
      ? spawn('perf', ['record', '-F', '2000', '-g', '-p', String(backend), '-o', process.env.BENCH_PERF], {
          stdio: 'ignore',
        })
      : null;
    if (perf) await new Promise((r) => setTimeout(r, 500));
    if (EXPLAIN) {
      await sql`LOAD 'auto_explain'`.execute(wdb);
      await sql`SET auto_explain.log_min_duration = 0`.execute(wdb);
      await sql`SET auto_explain.log_analyze = on`.execute(wdb);
      await sql`SET auto_explain.log_wal = on`.execute(wdb);
      await sql`SET auto_explain.log_buffers = on`.execute(wdb);
      await sql`SET auto_explain.log_triggers = on`.execute(wdb);
      await sql`SET auto_explain.log_timing = on`.execute(wdb);
      if (!process.env.BENCH_PLANS) await sql`SET auto_explain.log_format = json`.execute(wdb);
      await sql`SET auto_explain.log_level = notice`.execute(wdb);
    }
    const rounds: {
      cpuMsPerAnswer: number;
      storeMs: number;
      settleMs: number;
      walBytesPerAnswer: number;
      walRecordsPerAnswer: number;
    }[] = [];
    let shared: Awaited<ReturnType<typeof newSite>> | null = null;
    let walRows: WalRow[] = [];
    if (WAL) await sql`CREATE EXTENSION IF NOT EXISTS pg_walinspect`.execute(ctx.db);
    for (let r = 0; r < ROUNDS + 1; r++) {
      const target = SAME_SITE ? (shared ??= await newSite(ctx, 'target')) : await newSite(ctx, `round-${r}`);
      const { scan } = await startScan(ctx, target.site, target.userId, {
        label: `round-${r}`,
        providers: ['openai'],
      });
      const book = await loadBrandBook(ctx.db, target.site.id);
      const inputs: NewAnswer[] = answers.map((a) =>
        answerAgain(a, {
          scanId: scan.id,
          siteId: target.site.id,
          promptId: target.promptIds[promptIndex.get(a.promptId)!]!,
        }),
      );
      const ref = { scanId: scan.id, siteId: target.site.id, orgId: target.site.orgId };
      explained.clear();
      const lsnBefore = (await sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(ctx.db))
        .rows[0]!.lsn;
      const walBefore = (
        await sql<{
          b: string;
          r: string;
        }>`SELECT wal_bytes::text AS b, wal_records::text AS r FROM pg_stat_wal`.execute(ctx.db)
      ).rows[0]!;
      const cpuBefore = backendCpu(backend);
      let storeMs = 0;
      let settleMs = 0;
      for (let i = 0; i < inputs.length; i += BATCH) {
        const items = inputs.slice(i, i + BATCH);
        const facts = await analyseAnswers(ctx, items, book);
        const t0 = performance.now();
        const stored = await storeAnswers(
          wctx,
          items.map((a, n) => ({ ...a, facts: facts[n] })),
          book,
        );
        const t1 = performance.now();
        await settle(
          // settle uses the pool's prepared statements: run it on the measured connection too.
          wctx,
          ref,
          items.flatMap((a, n) =>
            stored[n]
              ? [
                  {
                    answerId: stored[n].answerId,
                    priceMicros: a.costMicros,
                    reservedAt: a.askedAt,
                    description: 'bench',
                  },
                ]
              : [],
          ),
        );
        storeMs += t1 - t0;
        settleMs += performance.now() - t1;
      }
      const cpu = backendCpu(backend) - cpuBefore;
      const walAfter = (
        await sql<{
          b: string;
          r: string;
        }>`SELECT wal_bytes::text AS b, wal_records::text AS r FROM pg_stat_wal`.execute(ctx.db)
      ).rows[0]!;
      if (r === 0) continue; // warm-up: plans, caches
      if (WAL && r === ROUNDS) {
        // Flushed: pg_walinspect reads no further, and the round's commits flushed theirs.
        const lsnAfter = (await sql<{ lsn: string }>`SELECT pg_current_wal_flush_lsn()::text AS lsn`.execute(ctx.db))
          .rows[0]!.lsn;
        walRows = await walByRelation(ctx.db, lsnBefore, lsnAfter, inputs.length);
      }
      rounds.push({
        cpuMsPerAnswer: Math.round((cpu * 1000 * 1000) / inputs.length) / 1000,
        storeMs: Math.round(storeMs),
        settleMs: Math.round(settleMs),
        walBytesPerAnswer: Math.round((Number(walAfter.b) - Number(walBefore.b)) / inputs.length),
        walRecordsPerAnswer: Math.round(((Number(walAfter.r) - Number(walBefore.r)) / inputs.length) * 10) / 10,
      });
    }
    if (perf) {
      perf.kill('SIGINT');
      await new Promise((r) => perf.once('exit', r));
    }
    const byCpu = [...rounds].sort((a, b) => a.cpuMsPerAnswer - b.cpuMsPerAnswer);
    const statements = EXPLAIN
      ? Object.fromEntries(
          [...explained].map(([kind, e]) => [
            kind,
            {
              perBatch: e.count / (PROMPTS / BATCH),
              msPerAnswer: Math.round((e.ms / PROMPTS) * 1000) / 1000,
              walBytesPerAnswer: Math.round(e.walBytes / PROMPTS),
              walRecordsPerAnswer: Math.round((e.walRecords / PROMPTS) * 10) / 10,
              walFpiPerAnswer: Math.round((e.walFpi / PROMPTS) * 100) / 100,
              writes: Object.fromEntries(
                [...e.writes].map(([n, w]) => [
                  n,
                  {
                    msPerAnswer: Math.round((w.ms / PROMPTS) * 1000) / 1000,
                    walBytesPerAnswer: Math.round(w.walBytes / PROMPTS),
                    rowsPerAnswer: Math.round((w.rows / PROMPTS) * 100) / 100,
                  },
                ]),
              ),
              triggers: Object.fromEntries(
                [...e.triggers].map(([n, t]) => [
                  n,
                  { msPerAnswer: Math.round((t.ms / PROMPTS) * 1000) / 1000, callsPerAnswer: t.calls / PROMPTS },
                ]),
              ),
            },
          ]),
        )
      : undefined;
    console.log(
      JSON.stringify(
        {
          bench: 'answer-write',
          sameSite: SAME_SITE,
          explain: EXPLAIN,
          answers: answers.length,
          medianCpuMsPerAnswer: byCpu[Math.floor(byCpu.length / 2)]!.cpuMsPerAnswer,
          rounds,
          ...(statements && { lastRoundStatements: statements }),
          ...(WAL && { lastRoundWalPerAnswer: walByTable(walRows) }),
        },
        null,
        2,
      ),
    );
  } finally {
    await wdb.destroy();
    await closeContext(ctx);
    sim.stop();
  }
}

runBench(main);
