/**
 * bench/crawler-traffic (issue 28): Sightline's log import against GoAccess
 * (Debian's `goaccess`, the common open-source log analyser), then a
 * traffic report over ten million imported lines.
 *
 * 1. One generated combined log (src/fixture-site/access-log.ts: people and
 *    their assets, some sent by assistants, search engines, AI crawlers and
 *    fetchers, SEO bots; 25.5% of lines are AI agents of the table), 1 GiB
 *    by default, kept in BENCH_TRAFFIC_DIR between runs. Rounds interleave
 *    GoAccess (`--log-format=COMBINED --no-progress`, its JSON report
 *    written to a file) and `sightline logs import` (parse, classify, hash,
 *    aggregate, store in PostgreSQL; a fresh site each round), each a
 *    process of its own timed by GNU time: seconds, lines per second, peak
 *    RSS, and the ratio of each round (GoAccess's seconds over Sightline's;
 *    above 1, Sightline is faster) with their median. On a shared machine
 *    the load moves within minutes: interleaving puts both under the same.
 *    Target: Sightline at least as fast as GoAccess, memory flat.
 * 2. A log of 10,000,000 lines imported into another site, then the
 *    traffic report (the domain function the route calls) 40 times per
 *    period kind: p50 and p95. Target: p95 under 50 ms. The peak RSS of
 *    this import against the 1 GiB one says whether memory stayed flat.
 *
 * Options: --lines N (the compared log's lines; 4,730,000 make 1 GiB; e.g.
 * --lines 1000000 to iterate), --rounds N (3), --no-report (skip part 2),
 * --report-lines N (10,000,000). BENCH_TRAFFIC=quick is --lines 473000
 * --report-lines 1000000. GoAccess is installed here when missing
 * (apt-get, as root), never by npm test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { crawlerTrafficReport } from '../src/domain/traffic/report.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { accessLog } from '../src/fixture-site/access-log.ts';
import type { Period } from '../src/domain/common/periods.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_traffic';
const DIR = process.env.BENCH_TRAFFIC_DIR ?? path.join(os.tmpdir(), 'sightline-bench-traffic');
const QUICK = process.env.BENCH_TRAFFIC === 'quick';
const { values: args } = parseArgs({
  options: {
    lines: { type: 'string' },
    rounds: { type: 'string' },
    'no-report': { type: 'boolean' },
    'report-lines': { type: 'string' },
  },
});
const count = (v: string | undefined, fallback: number) =>
  v === undefined ? fallback : Number(v.replaceAll('_', '').replaceAll(',', ''));
/** About 227 bytes a line: 4.73 million lines make 1 GiB. */
const GIB_LINES = count(args.lines, QUICK ? 473_000 : 4_730_000);
const ROUNDS = count(args.rounds, 3);
const REPORT_LINES = count(args['report-lines'], QUICK ? 1_000_000 : 10_000_000);
const REPORT_RUNS = 40;
const REPORT_TARGET_MS = 50;
const DAY = 86_400_000;

const PAGES = Array.from({ length: 5000 }, (_, i) =>
  i === 0 ? '/' : i < 40 ? `/docs/page-${i}` : i < 400 ? `/blog/post-${i}` : `/products/category-${i % 40}/item-${i}`,
);

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
  const r = spawnSync('/usr/bin/time', ['-f', '%e %M', command, ...args], {
    encoding: 'utf8',
    env,
    maxBuffer: 64 << 20,
  });
  const last = r.stderr.trim().split('\n').at(-1) ?? '';
  const [seconds, kb] = last.split(' ').map(Number);
  if (r.status !== 0 || !Number.isFinite(seconds))
    throw new Error(`${command} failed (${r.status}): ${r.stderr.slice(-2000)}`);
  return { seconds: seconds as number, peakRssMb: Math.round((kb as number) / 1024), stdout: r.stdout };
}

function at(sorted: number[], q: number) {
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) * 10) / 10;
}

const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};
const round2 = (x: number) => Math.round(x * 100) / 100;

interface ImportOutput {
  import: { lines: number; counted: number; duplicates: number; skipped: number };
}

async function main() {
  const goaccess = ensureGoAccess();
  const end = Date.UTC(2026, 10, 25);
  const gib = await logFile(`access-${GIB_LINES}.log`, GIB_LINES, end - 24 * DAY, end, 28);
  const bytes = statSync(gib).size;

  await ensureDatabase(DATABASE_URL);
  const env = { ...process.env, DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: 'sightline-bench-traffic' };
  const ctx = createContext(loadConfig({ DATABASE_URL, LOG_LEVEL: 'warn', REDIS_PREFIX: 'sightline-bench-traffic' }), {
    role: 'cli',
    jobTable: loadJobTable,
    dbPoolSize: 4,
  });
  const { db } = ctx;
  try {
    await migrateToLatest(db);
    const org = await createOrg(ctx, { name: `Bench traffic ${Date.now()}`, plan: 'enterprise' });
    // One workspace, a domain per site (a workspace holds a domain once); the log names pages by path only.
    const newSite = (name: string, domain: string) =>
      db
        .insertInto('sites')
        .values({ orgId: org.id, name, url: `https://www.${domain}`, domain })
        .returningAll()
        .executeTakeFirstOrThrow();
    const dropSite = async (siteId: number) => {
      await db.deleteFrom('trafficSeen').where('siteId', '=', siteId).execute();
      await db.deleteFrom('sites').where('id', '=', siteId).execute();
    };
    const cli = (siteId: number, file: string) =>
      timed(
        path.join(ROOT, 'node_modules/.bin/node'),
        [path.join(ROOT, 'src/cli/main.ts'), 'logs', 'import', '--project', String(siteId), file],
        env,
      );

    // 1. The same file, GoAccess then Sightline, round after round.
    const uptimeBefore = uptime();
    console.error(`${uptimeBefore}\n${GIB_LINES.toLocaleString('en-US')} lines, ${ROUNDS} rounds`);
    const rounds: {
      goaccess: ReturnType<typeof timed>;
      sightline: ReturnType<typeof timed>;
      ratio: number;
      load: string;
    }[] = [];
    let gibImport: ImportOutput['import'] | null = null;
    for (let i = 0; i < ROUNDS; i++) {
      const ga = timed('goaccess', [
        gib,
        '--log-format=COMBINED',
        '--no-progress',
        '-o',
        path.join(DIR, 'goaccess-report.json'),
      ]);
      const site = await newSite(`Bench shop, round ${i + 1}`, `bench-shop-${Date.now()}.com`);
      const sl = cli(site.id, gib);
      gibImport = (JSON.parse(sl.stdout) as ImportOutput).import;
      await dropSite(site.id);
      const load = os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
      rounds.push({ goaccess: ga, sightline: sl, ratio: round2(ga.seconds / sl.seconds), load });
      console.error(
        `round ${i + 1}: GoAccess ${ga.seconds} s (${ga.peakRssMb} MB), Sightline ${sl.seconds} s (${sl.peakRssMb} MB): x${round2(ga.seconds / sl.seconds)}, load ${load}`,
      );
    }
    const uptimeAfter = uptime();
    if (!gibImport) throw new Error('--rounds must be at least 1');
    const lines = gibImport.lines;
    const ratios = rounds.map((r) => r.ratio);

    // 2. Ten million lines into another site, then the report.
    let tenMillion: object | null = null;
    const reports: { period: Period; start: string; rows: number; p50: number; p95: number; max: number }[] = [];
    let bigRss = 0;
    if (!args['no-report']) {
      const big = await logFile(`access-${REPORT_LINES}.log`, REPORT_LINES, end - 30 * DAY, end, 10);
      const bigSite = await newSite('Bench shop, 10M lines', `bench-shop-10m-${Date.now()}.com`);
      const bigRun = cli(bigSite.id, big);
      bigRss = bigRun.peakRssMb;
      const bigImport = (JSON.parse(bigRun.stdout) as ImportOutput).import;
      tenMillion = {
        lines: bigImport.lines,
        counted: bigImport.counted,
        seconds: bigRun.seconds,
        linesPerSec: Math.round(bigImport.lines / bigRun.seconds),
        peakRssMb: bigRun.peakRssMb,
      };
      // What autovacuum would have done by the time anyone reads the report (it may be off on a bench database).
      await sql`VACUUM ANALYZE traffic_agent_period, traffic_period_pages, traffic_period_totals, traffic_paths, rollup_page_period`.execute(
        db,
      );
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
      await dropSite(bigSite.id);
    }
    const worstP95 = reports.length ? Math.max(...reports.map((r) => r.p95)) : null;
    const slRss = Math.max(...rounds.map((r) => r.sightline.peakRssMb));
    console.log(
      JSON.stringify(
        {
          bench: 'crawler-traffic',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
          uptimeBefore,
          uptimeAfter,
          goaccess: goaccess,
          log: {
            file: gib,
            bytes,
            lines,
            counted: gibImport.counted,
            duplicates: gibImport.duplicates,
            skipped: gibImport.skipped,
          },
          rounds: rounds.map((r, i) => ({
            round: i + 1,
            goaccess: {
              seconds: r.goaccess.seconds,
              linesPerSec: Math.round(lines / r.goaccess.seconds),
              peakRssMb: r.goaccess.peakRssMb,
            },
            sightline: {
              seconds: r.sightline.seconds,
              linesPerSec: Math.round(lines / r.sightline.seconds),
              peakRssMb: r.sightline.peakRssMb,
            },
            ratio: r.ratio,
            loadAfter: r.load,
          })),
          ratios,
          medianRatio: round2(median(ratios)),
          tenMillion,
          reports,
          targets: {
            asFastAsGoAccess: median(ratios) >= 1,
            memoryFlat: tenMillion ? bigRss <= slRss * 1.25 : null,
            reportP95UnderMs: REPORT_TARGET_MS,
            reportMet: worstP95 === null ? null : worstP95 < REPORT_TARGET_MS,
          },
        },
        null,
        2,
      ),
    );
    await db.deleteFrom('orgs').where('id', '=', org.id).execute();
  } finally {
    await closeContext(ctx);
  }
}

runBench(main);
