/**
 * bench/write-ab: the database's CPU per stored answer on this tree's write
 * path against another checkout's (BENCH_AB_OTHER, e.g. a worktree of main),
 * batch by batch in turn. bench/answer-write measures one tree a run; on a
 * machine whose load drifts (other jobs' builds and tests) two runs minutes
 * apart differ by more than a change does. Here the two trees' batches
 * alternate every few tens of milliseconds, each on its own database and
 * its own connection, so a change of load weighs on both alike.
 *
 * One real one-provider scan of 500 prompts (this tree, simulator) gives the
 * answers; each round stores them again for a new site and scan on each
 * side, in batches of BENCH_BATCH (65 by default: about what bench/scan's
 * writer stores at a time), each batch analysed first (not counted), then
 * storeAnswers and settle on the side's one connection, whose backend's CPU
 * (/proc/<pid>/schedstat, nanoseconds) is counted. Which side goes first
 * changes every round. Rounds: BENCH_ROUNDS (9) after a warm-up round.
 * Databases: BENCH_DATABASE_URL (this tree) and BENCH_AB_OTHER_DATABASE_URL;
 * each side migrates its own with its own migrations.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import type { AppContext } from '../src/context.ts';
import type { NewAnswer } from '../src/domain/facts/answer-store.ts';
import { runBench } from './lib.ts';
import type * as Context from '../src/context.ts';
import type * as Database from '../src/db/database.ts';
import type * as Migrate from '../src/db/migrate.ts';
import type * as Store from '../src/domain/facts/answer-store.ts';
import type * as Facts from '../src/domain/facts/answer-facts.ts';
import type * as Book from '../src/domain/facts/brand-book.ts';
import type * as Purse from '../src/domain/scans/purse-sql.ts';
import type * as Scans from '../src/domain/scans/scans.ts';
import type * as Run from '../src/domain/scans/run.ts';
import type * as Setup from './scan-setup.ts';
import type * as Jobs from '../jobs/load-table.ts';
import { answerAgain, backendCpu, startSimulator } from './scan-setup.ts';

const OTHER = process.env.BENCH_AB_OTHER;
const THIS_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_write_ab';
const OTHER_URL =
  process.env.BENCH_AB_OTHER_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_write_ab_other';
const BATCH = Number(process.env.BENCH_BATCH ?? 65);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const PROMPTS = 500;
const SIM_PORT = 18412;

/** The modules each side runs, from its own tree (the other tree's have the same exports, typed as this tree's). */
async function treeModules(root: string) {
  const load = <T>(file: string) => import(path.join(root, file)) as Promise<T>;
  return {
    context: await load<typeof Context>('src/context.ts'),
    database: await load<typeof Database>('src/db/database.ts'),
    migrate: await load<typeof Migrate>('src/db/migrate.ts'),
    store: await load<typeof Store>('src/domain/facts/answer-store.ts'),
    facts: await load<typeof Facts>('src/domain/facts/answer-facts.ts'),
    book: await load<typeof Book>('src/domain/facts/brand-book.ts'),
    purse: await load<typeof Purse>('src/domain/scans/purse-sql.ts'),
    scans: await load<typeof Scans>('src/domain/scans/scans.ts'),
    run: await load<typeof Run>('src/domain/scans/run.ts'),
    setup: await load<typeof Setup>('bench/scan-setup.ts'),
    jobs: await load<typeof Jobs>('jobs/load-table.ts'),
  };
}
type Tree = Awaited<ReturnType<typeof treeModules>>;

interface Side {
  name: string;
  tree: Tree;
  ctx: AppContext;
  /** The measured connection's context: the same, with one connection. */
  wctx: AppContext;
  backend: number;
}

async function openSide(name: string, root: string, url: string, simUrl: string): Promise<Side> {
  const tree = await treeModules(root);
  await tree.migrate.ensureDatabase(url);
  const config = loadConfig({
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    ASSISTANTS: 'simulator',
    SIMULATOR_URL: simUrl,
    ASSISTANT_CONCURRENCY: '10',
    REDIS_PREFIX: `bench-ab-${name}-${process.pid}`,
  });
  const ctx = tree.context.createContext(config, { role: 'worker', jobTable: tree.jobs.loadJobTable, dbPoolSize: 10 });
  await tree.migrate.migrateToLatest(ctx.db);
  const wdb = tree.database.createDb(url, { max: 1 });
  const { rows } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(wdb);
  return { name, tree, ctx, wctx: { ...ctx, db: wdb }, backend: rows[0]!.pid };
}

/** A new site and scan on a side, and the source answers as that scan's inputs. */
async function target(side: Side, label: string, answers: Source) {
  const { tree, ctx } = side;
  const site = await tree.setup.benchSite(ctx, 'ab', label, PROMPTS);
  const { scan } = await tree.scans.startScan(ctx, site.site, site.userId, { label, providers: ['openai'] });
  const book = await tree.book.loadBrandBook(ctx.db, site.site.id);
  const inputs: NewAnswer[] = answers.rows.map((a) =>
    answerAgain(a, {
      scanId: scan.id,
      siteId: site.site.id,
      promptId: site.promptIds[answers.promptIndex.get(a.promptId)!]!,
    }),
  );
  return { book, inputs, ref: { scanId: scan.id, siteId: site.site.id, orgId: site.site.orgId } };
}

interface Source {
  rows: Awaited<ReturnType<typeof sourceAnswers>>;
  promptIndex: Map<number, number>;
}

async function sourceAnswers(ctx: AppContext, scanId: number) {
  return ctx.db.selectFrom('answers').selectAll().where('scanId', '=', scanId).orderBy('id').execute();
}

/** Stores one batch on a side: its backend's CPU seconds for storeAnswers and settle. */
async function storeBatch(side: Side, t: Awaited<ReturnType<typeof target>>, items: NewAnswer[]): Promise<number> {
  const facts = await side.tree.facts.analyseAnswers(side.ctx, items, t.book);
  const before = backendCpu(side.backend);
  const stored = await side.tree.store.storeAnswers(
    side.wctx,
    items.map((a, n) => ({ ...a, facts: facts[n] })),
    t.book,
  );
  await side.tree.purse.settle(
    side.wctx,
    t.ref,
    items.flatMap((a, n) =>
      stored[n]
        ? [{ answerId: stored[n].answerId, priceMicros: a.costMicros, reservedAt: a.askedAt, description: 'bench' }]
        : [],
    ),
  );
  return backendCpu(side.backend) - before;
}

async function main() {
  if (!OTHER) {
    // npm run bench runs every script: without a tree to compare with there is nothing to measure.
    console.log(JSON.stringify({ bench: 'write-ab', skipped: 'set BENCH_AB_OTHER to the checkout to compare with' }));
    return;
  }
  const sim = await startSimulator(SIM_PORT);
  const here = await openSide('this', path.resolve(import.meta.dirname, '..'), THIS_URL, sim.url);
  const other = await openSide('other', path.resolve(OTHER), OTHER_URL, sim.url);
  try {
    await fetch(`${sim.url}/__sim/script`, { method: 'DELETE' });
    const source = await here.tree.setup.benchSite(here.ctx, 'ab', 'source', PROMPTS);
    const { scan } = await here.tree.scans.startScan(here.ctx, source.site, source.userId, {
      label: 'source',
      providers: ['openai'],
    });
    await here.tree.run.runScan(here.ctx, scan.id);
    const answers: Source = {
      rows: await sourceAnswers(here.ctx, scan.id),
      promptIndex: new Map(source.promptIds.map((id, i) => [id, i])),
    };
    const rounds: { this: number; other: number; ratio: number; load: number }[] = [];
    for (let r = 0; r < ROUNDS + 1; r++) {
      const sides = r % 2 === 0 ? [here, other] : [other, here];
      const targets = new Map<Side, Awaited<ReturnType<typeof target>>>();
      for (const side of sides) targets.set(side, await target(side, `round-${r}`, answers));
      const cpu = new Map<Side, number>(sides.map((s) => [s, 0]));
      for (let i = 0; i < answers.rows.length; i += BATCH)
        for (const side of sides) {
          const t = targets.get(side)!;
          cpu.set(side, cpu.get(side)! + (await storeBatch(side, t, t.inputs.slice(i, i + BATCH))));
        }
      if (r === 0) continue; // warm-up: plans, caches
      const ms = (side: Side) => Math.round((cpu.get(side)! * 1e6) / answers.rows.length) / 1000;
      rounds.push({
        this: ms(here),
        other: ms(other),
        ratio: Math.round((cpu.get(here)! / cpu.get(other)!) * 1000) / 1000,
        load: Math.round(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) * 10) / 10,
      });
      console.error(`round ${r}: ${JSON.stringify(rounds.at(-1))}`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(
      JSON.stringify(
        {
          bench: 'write-ab',
          other: OTHER,
          batch: BATCH,
          answers: answers.rows.length,
          medianRatio: median(rounds.map((x) => x.ratio)),
          medianThisMsPerAnswer: median(rounds.map((x) => x.this)),
          medianOtherMsPerAnswer: median(rounds.map((x) => x.other)),
          rounds,
        },
        null,
        2,
      ),
    );
  } finally {
    for (const side of [here, other]) {
      await side.wctx.db.destroy();
      await side.tree.context.closeContext(side.ctx);
    }
    sim.stop();
  }
}

runBench(main);
