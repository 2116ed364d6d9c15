/**
 * bench/crawler-traffic (issue 28): Sightline's log import against GoAccess
 * (Debian's `goaccess`, the common open-source log analyser), then a
 * traffic report over ten million imported lines.
 *
 * 1. One generated combined log of 1 GiB (src/fixture-site/access-log.ts:
 *    people and their assets, some sent by assistants, search engines, AI
 *    crawlers and fetchers, SEO bots; 25.5% of lines are AI agents of the
 *    table), kept in BENCH_TRAFFIC_DIR between runs. GoAccess parses it
 *    (`--log-format=COMBINED --no-progress`, its JSON report written to a
 *    file), then `sightline logs import` imports it (parse, classify,
 *    aggregate, store in PostgreSQL), each a process of its own timed by
 *    GNU time: seconds, lines per second, peak RSS. Target: Sightline at
 *    least as fast as GoAccess, memory flat in the log's size.
 * 2. A log of 10,000,000 lines imported into another project, then the
 *    traffic report (the domain function the route calls) 40 times per
 *    period kind: p50 and p95. Target: p95 under 50 ms. The peak RSS of
 *    this import against the 1 GiB one says whether memory stayed flat.
 *
 * GoAccess is installed here when missing (apt-get, as root), never by
 * npm test. BENCH_TRAFFIC=quick runs a tenth of each size.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { crawlerTrafficReport } from '../src/domain/traffic/report.ts';
import { createOrg } from '../src/domain/workspace/orgs.ts';
import { accessLog } from '../src/fixture-site/access-log.ts';
import type { Period } from '../src/domain/reports/periods.ts';
import { runBench } from './lib.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_traffic';
const DIR = process.env.BENCH_TRAFFIC_DIR ?? path.join(os.tmpdir(), 'sightline-bench-traffic');
const QUICK = process.env.BENCH_TRAFFIC === 'quick';
/** About 227 bytes a line: 4.73 million lines make 1 GiB. */
const GIB_LINES = QUICK ? 473_000 : 4_730_000;
const REPORT_LINES = QUICK ? 1_000_000 : 10_000_000;
const REPORT_RUNS = 40;
const REPORT_TARGET_MS = 50;
const DAY = 86_400_000;

const PAGES = Array.from({ length: 5000 }, (_, i) => (i === 0 ? '/' : i < 40 ? `/docs/page-${i}` : i < 400 ? `/blog/post-${i}` : `/products/category-${i % 40}/item-${i}`));

function ensureGoAccess(): string {
  const has = () => spawnSync('goaccess', ['--version'], { encoding: 'utf8' });
  let v = has();
  if (v.status !== 0) {
    console.error('goaccess is missing: apt-get install goaccess');
    if (spawnSync('apt-get', ['install', '-y', 'goaccess'], { stdio: 'inherit' }).status !== 0) {
      spawnSync('apt-get', ['update'], { stdio: 'inherit' });
      spawnSync('apt-get', ['install', '-y', 'goaccess'], { stdio: 'inherit' });
    }
    v = has();
    if (v.status !== 0) throw new Error('could not install goaccess');
  }
  return v.stdout.split('\n')[0]?.trim() ?? 'goaccess';
}

/** Writes the log once; a file of the right name is reused (the generator is seeded: same bytes). */
async function logFile(name: string, lines: number, from: number, to: number, seed: number): Promise<string> {
  mkdirSync(DIR, { recursive: true });
  const file = path.join(DIR, name);
  if (existsSync(file) && statSync(file).size > 0) return file;
  const started = performance.now();
  const out = createWriteStream(`${file}.part`);
  for (const block of accessLog({ pages: PAGES, host: 'www.bench-shop.com', from, to, lines, seed })) {
    if (!out.write(block)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  spawnSync('mv', [`${file}.part`, file]);
  console.error(
    `wrote ${file}: ${lines.toLocaleString('en-US')} lines, ${(statSync(file).size / 2 ** 30).toFixed(2)} GiB in ${Math.round((performance.now() - started) / 1000)} s`,
  );
  return file;
}

/** A command under GNU time: wall seconds and peak RSS (MB). */
function timed(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], { encoding: 'utf8', env, maxBuffer: 64 << 20 });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [seconds, kb] = last.split(' ').map(Number);
  if (r.status !== 0 || !Number.isFinite(seconds)) throw new Error(`${command} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { seconds: seconds as number, peakRssMb: Math.round((kb as number) / 1024), stdout: r.stdout };
}

function at(sorted: number[], q: number) {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 10) / 10;
}

async function main() {
  const goaccess = ensureGoAccess();
  const end = Date.UTC(2026, 10, 25);
  const gib = await logFile(`access-${GIB_LINES}.log`, GIB_LINES, end - 24 * DAY, end, 28);
  const bytes = statSync(gib).size;

  await ensureDatabase(DATABASE_URL);
  const env = { ...process.env, DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: 'sightline-bench-traffic' };
  const ctx = createContext(loadConfig({ DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: 'sightline-bench-traffic' }), { role: 'cli', dbPoolSize: 4 });
  const { db } = ctx;
  try {
    await migrateToLatest(db);
    const org = await createOrg(ctx, { name: `Bench traffic ${Date.now()}`, plan: 'enterprise' });
    // One workspace, a domain per project (a workspace holds a domain once); the log names pages by path only.
    const newSite = (name: string, domain: string) =>
      db
        .insertInto('sites')
        .values({ orgId: org.id, name, url: `https://www.${domain}`, domain })
        .returningAll()
        .executeTakeFirstOrThrow();
    const cli = (siteId: number, file: string) =>
      timed(path.join(ROOT, 'node_modules/.bin/node'), [path.join(ROOT, 'src/cli/main.ts'), 'logs', 'import', '--project', String(siteId), file], env);

    // 1. The same file, GoAccess then Sightline, in one run.
    const ga = timed('goaccess', [gib, '--log-format=COMBINED', '--no-progress', '-o', path.join(DIR, 'goaccess-report.json')]);
    const gibSite = await newSite('Bench shop, 1 GiB', 'bench-shop.com');
    const sl = cli(gibSite.id, gib);
    const gibImport = (JSON.parse(sl.stdout) as { import: { lines: number; counted: number; duplicates: number; skipped: number } }).import;
    const lines = gibImport.lines;

    // 2. Ten million lines into another project, then the report.
    const big = await logFile(`access-${REPORT_LINES}.log`, REPORT_LINES, end - 30 * DAY, end, 10);
    const bigSite = await newSite('Bench shop, 10M lines', 'bench-shop-10m.com');
    const bigRun = cli(bigSite.id, big);
    const bigImport = (JSON.parse(bigRun.stdout) as { import: { lines: number; counted: number } }).import;
    // What autovacuum would have done by the time anyone reads the report (it may be off on a bench database).
    await sql`VACUUM ANALYZE traffic_agent_period, traffic_period_pages, traffic_period_totals, traffic_paths, rollup_page_period`.execute(db);
    const reports: { period: Period; start: string; rows: number; p50: number; p95: number; max: number }[] = [];
    for (const [period, start] of [
      ['week', '2026-11-16'],
      ['month', '2026-11-01'],
      ['quarter', '2026-10-01'],
      ['day', '2026-11-20'],
    ] as [Period, string][]) {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < REPORT_RUNS + 3; i++) {
        const t = performance.now();
        const r = await crawlerTrafficReport(ctx, bigSite, { period, start });
        if (i >= 3) times.push(performance.now() - t);
        rows = r.agents.reduce((s, a) => s + a.pages, 0);
      }
      times.sort((a, b) => a - b);
      reports.push({ period, start, rows, p50: at(times, 0.5), p95: at(times, 0.95), max: at(times, 1) });
    }
    const worstP95 = Math.max(...reports.map((r) => r.p95));
    console.log(
      JSON.stringify(
        {
          bench: 'crawler-traffic',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
          goaccess: { version: goaccess, seconds: ga.seconds, linesPerSec: Math.round(lines / ga.seconds), peakRssMb: ga.peakRssMb },
          sightline: { seconds: sl.seconds, linesPerSec: Math.round(lines / sl.seconds), peakRssMb: sl.peakRssMb, ...gibImport },
          log: { file: gib, bytes, lines },
          ratio: Math.round((ga.seconds / sl.seconds) * 100) / 100,
          tenMillion: {
            lines: bigImport.lines,
            counted: bigImport.counted,
            seconds: bigRun.seconds,
            linesPerSec: Math.round(bigImport.lines / bigRun.seconds),
            peakRssMb: bigRun.peakRssMb,
          },
          reports,
          targets: {
            asFastAsGoAccess: sl.seconds <= ga.seconds,
            memoryFlat: bigRun.peakRssMb <= sl.peakRssMb * 1.25,
            reportP95UnderMs: REPORT_TARGET_MS,
            reportMet: worstP95 < REPORT_TARGET_MS,
          },
        },
        null,
        2,
      ),
    );
    await db.deleteFrom('trafficSeen').where('siteId', 'in', [gibSite.id, bigSite.id]).execute();
    await db.deleteFrom('orgs').where('id', '=', org.id).execute();
  } finally {
    await closeContext(ctx);
  }
}

runBench(main);
