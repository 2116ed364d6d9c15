/**
 * bench/scale: three worker processes (`sightline worker --queues scan`) share
 * one provider account through Redis, against the simulator (a fourth
 * process) limited to 1,200 requests per minute for OpenAI, every call taking
 * 1 s.
 * 1. After a warm-up round (twenty sites of 3 prompts, not counted), twenty
 *    sites of SCALE_PROMPTS prompts (default 90) start a scan at once:
 *    throughput against the limit (target 90%+), 429s as a share of calls
 *    after the first ten seconds (target < 1%), and the finish times of the
 *    twenty (slowest <= 1.5x fastest, counted from when they were started).
 * 2. A site of 20 prompts started while a site of 2,000 runs (10 s in): its
 *    time against the same site alone at its fair share (half the account:
 *    a second, idle member is put in the account's share list), target < 2x.
 *    The large scan is cancelled once the small one is done.
 * The workers use OPENAI_RPM=1200 (the account's limit) and
 * OPENAI_MAX_IN_FLIGHT=60, WORKER_SCAN_CONCURRENCY=10.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { cancelScan, startScan } from '../src/domain/scans/scans.ts';
import { createSite } from '../src/domain/onboarding/new-site.ts';
import { addMember } from '../src/domain/orgs/members.ts';
import { createOrg, setOrgLimits } from '../src/domain/orgs/orgs.ts';
import { createUser } from '../src/domain/orgs/users.ts';
import { usdToMicros } from '../src/money.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_scale';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `bench-scale-${process.pid}`;
const SIM_PORT = 18510;
const SIM_URL = `http://127.0.0.1:${SIM_PORT}`;
const LIMIT_RPM = 1200;
const WORKERS = 3;
const SITES = 20;
const PROMPTS = Number(process.env.SCALE_PROMPTS ?? 90);
const LARGE = 2000;
const SMALL = 20;
const LATENCY_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

async function waitFor(url: string) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`${url} never answered`);
}

async function simCounts(): Promise<{ accepted: number; limited: number }> {
  const body = (await (await fetch(`${SIM_URL}/__sim/limits`)).json()) as {
    counts: Record<string, { accepted: number; limited: number }>;
  };
  return body.counts.openai ?? { accepted: 0, limited: 0 };
}

/** Resets the simulator's account (its counts with it) and makes every OpenAI call take LATENCY_MS. */
async function resetSimulator() {
  await fetch(`${SIM_URL}/__sim/script`, { method: 'DELETE' });
  await fetch(`${SIM_URL}/__sim/requests`, { method: 'DELETE' });
  await fetch(`${SIM_URL}/__sim/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ provider: 'openai', latencyMs: LATENCY_MS }),
  });
  await fetch(`${SIM_URL}/__sim/limits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ openai: LIMIT_RPM }),
  });
}

async function seedOrg(ctx: AppContext) {
  const org = await createOrg(ctx, {
    name: `Bench scale ${Date.now()}`,
    plan: 'enterprise',
    balanceMicros: usdToMicros(100_000),
  });
  await setOrgLimits(ctx, org.id, { promptsPerSite: 5000, sites: 1000, scansPerMonth: 100_000 });
  const user = await createUser(ctx, { email: `bench-scale-${Date.now()}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  return { orgId: org.id, userId: user.id };
}

async function site(ctx: AppContext, ws: { orgId: number; userId: number }, label: string, prompts: number) {
  const created = await createSite(ctx, ws, { name: `Site ${label}`, url: `scale-${label}-${Date.now()}.com` });
  const rows = Array.from({ length: prompts }, (_, i) => ({
    siteId: created.id,
    text: `Which ${label} alternative suits use case ${i}?`,
    status: 'active' as const,
  }));
  for (let i = 0; i < rows.length; i += 1000)
    await ctx.db
      .insertInto('prompts')
      .values(rows.slice(i, i + 1000))
      .execute();
  return ctx.db.selectFrom('sites').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
}

async function scanRows(ctx: AppContext, ids: number[]) {
  return ctx.db
    .selectFrom('scans')
    .select(['id', 'status', 'answersDone', 'answersFailed', 'startedAt', 'finishedAt'])
    .where('id', 'in', ids)
    .execute();
}

async function waitDone(ctx: AppContext, ids: number[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await scanRows(ctx, ids);
    if (rows.every((r) => ['done', 'failed', 'cancelled'].includes(r.status))) return rows;
    if (Date.now() > deadline)
      throw new Error(
        `scans still running after ${timeoutMs} ms: ${rows.filter((r) => r.finishedAt === null).map((r) => r.id)}`,
      );
    await sleep(200);
  }
}

/** Twenty equal sites at once. */
async function equalSites(ctx: AppContext, prompts = PROMPTS) {
  const ws = await seedOrg(ctx);
  const sites = [];
  for (let i = 0; i < SITES; i++) sites.push(await site(ctx, ws, `eq${i}`, prompts));
  await resetSimulator();
  const t0 = Date.now();
  // All twenty at once, as the nightly tick starts due sites.
  const ids = await Promise.all(
    sites.map(async (s) => (await startScan(ctx, s, ws.userId, { providers: ['openai'] })).scan.id),
  );
  // The simulator's counts every half second, to read any window of the run.
  const samples: { t: number; accepted: number; limited: number }[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push({ t: Date.now() - t0, ...(await simCounts()) });
      await sleep(500);
    }
  })();
  const rows = await waitDone(ctx, ids, 15 * 60_000);
  sampling = false;
  await sampler;
  const end = { t: Date.now() - t0, ...(await simCounts()) };
  const at = (ms: number) => samples.find((x) => x.t >= ms) ?? end;
  const at10 = at(10_000);
  const lastFinish = Math.max(...rows.map((r) => (r.finishedAt as Date).getTime()));
  const firstFinish = Math.min(...rows.map((r) => (r.finishedAt as Date).getTime()));
  const starts = rows.map((r) => ((r.startedAt as Date).getTime() - t0) / 1000);
  const durations = rows.map((r) => ((r.finishedAt as Date).getTime() - t0) / 1000);
  const minutes = (lastFinish - t0) / 60_000;
  const after10 = { accepted: end.accepted - at10.accepted, limited: end.limited - at10.limited };
  return {
    sites: SITES,
    promptsEach: prompts,
    answers: rows.reduce((s, r) => s + r.answersDone, 0),
    failedAnswers: rows.reduce((s, r) => s + r.answersFailed, 0),
    seconds: round((lastFinish - t0) / 1000, 1),
    requestsAccepted: end.accepted,
    requests429: end.limited,
    throughputRpm: round(end.accepted / minutes, 0),
    throughputShareOfLimit: round(end.accepted / minutes / LIMIT_RPM, 3),
    // The same from the first scan's job start (leaves out queue pick-up and the scans' own start on a loaded machine).
    fromFirstJobShareOfLimit: round(
      end.accepted / ((lastFinish - t0 - Math.min(...starts) * 1000) / 60_000) / LIMIT_RPM,
      3,
    ),
    // While all twenty ran (10 s in to the first finish): the steady rate without the start and the tail.
    steadyRpm:
      firstFinish - t0 > 15_000
        ? round((at(firstFinish - t0).accepted - at10.accepted) / ((at(firstFinish - t0).t - at10.t) / 60_000), 0)
        : null,
    after10s: {
      calls: after10.accepted + after10.limited,
      the429s: after10.limited,
      share429: round(after10.limited / Math.max(1, after10.accepted + after10.limited), 4),
    },
    // When each scan's job started on a worker, counted from when all were started.
    jobStartSeconds: { first: round(Math.min(...starts), 1), last: round(Math.max(...starts), 1) },
    finishSeconds: {
      fastest: round(Math.min(...durations), 1),
      slowest: round(Math.max(...durations), 1),
      ratio: round(Math.max(...durations) / Math.min(...durations), 3),
    },
  };
}

/** A small site beside a large one, against the small one alone at its fair share. */
async function smallBesideLarge(ctx: AppContext) {
  const ws = await seedOrg(ctx);
  const large = await site(ctx, ws, 'large', LARGE);
  const small = await site(ctx, ws, 'small', SMALL);
  const alone = await site(ctx, ws, 'alone', SMALL);
  const shareKey = `${PREFIX}:share:openai`;

  // Alone at its fair share: an idle second member makes the account's share a half.
  await resetSimulator();
  await ctx.redis.zadd(shareKey, Date.now() + 3_600_000, 'bench-idle-member');
  const t1 = Date.now();
  const aloneId = (await startScan(ctx, alone, ws.userId, { providers: ['openai'] })).scan.id;
  const [aloneRow] = await waitDone(ctx, [aloneId], 120_000);
  await ctx.redis.zrem(shareKey, 'bench-idle-member');
  const aloneSeconds = ((aloneRow?.finishedAt as Date).getTime() - t1) / 1000;

  await resetSimulator();
  const largeId = (await startScan(ctx, large, ws.userId, { providers: ['openai'] })).scan.id;
  await sleep(10_000);
  const t2 = Date.now();
  const smallId = (await startScan(ctx, small, ws.userId, { providers: ['openai'] })).scan.id;
  const [smallRow] = await waitDone(ctx, [smallId], 120_000);
  const besideSeconds = ((smallRow?.finishedAt as Date).getTime() - t2) / 1000;
  const [largeAtSmallEnd] = await scanRows(ctx, [largeId]);
  const counts = await simCounts();
  await cancelScan(ctx, large, largeId);
  await waitDone(ctx, [largeId], 120_000);
  return {
    large: LARGE,
    small: SMALL,
    smallAloneAtFairShareSeconds: round(aloneSeconds),
    smallBesideLargeSeconds: round(besideSeconds),
    ratio: round(besideSeconds / aloneSeconds, 3),
    largeAnswersWhenSmallDone: largeAtSmallEnd?.answersDone ?? null,
    requestsAccepted: counts.accepted,
    requests429: counts.limited,
  };
}

function startProcess(args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [path.resolve('src/cli/main.ts'), ...args], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ...env },
  });
  child.on('exit', (code, signal) => {
    if (code && code !== 0) console.error(`${args[0]} exited ${code ?? signal}`);
  });
  return child;
}

async function stop(children: ChildProcess[]) {
  await Promise.all(
    children.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          const force = setTimeout(() => c.kill('SIGKILL'), 15_000);
          c.once('exit', () => {
            clearTimeout(force);
            resolve();
          });
          c.kill('SIGTERM');
        }),
    ),
  );
}

async function clearPrefix() {
  const redis = new Redis(REDIS_URL);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${PREFIX}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const env = {
    DATABASE_URL,
    REDIS_URL,
    REDIS_PREFIX: PREFIX,
    LOG_LEVEL: 'error',
    ASSISTANTS: 'simulator',
    SIMULATOR_URL: SIM_URL,
    OPENAI_RPM: String(LIMIT_RPM),
    OPENAI_MAX_IN_FLIGHT: '60',
    WORKER_SCAN_CONCURRENCY: '10',
  };
  const config = loadConfig(env);
  const ctx = createContext(config, { role: 'worker', jobTable: loadJobTable, dbPoolSize: 10 });
  await migrateToLatest(ctx.db);
  const children: ChildProcess[] = [
    startProcess(['simulator', '--port', String(SIM_PORT)], { ...env, SIMULATOR_RPM: `openai=${LIMIT_RPM}` }),
  ];
  try {
    await waitFor(`${SIM_URL}/__sim/health`);
    for (let i = 0; i < WORKERS; i++) children.push(startProcess(['worker', '--queues', 'scan'], env));
    await sleep(2000);
    // Warm the workers up first (module loading, JIT, the analysis threads): the figures are of running workers, not starting ones.
    await equalSites(ctx, 3);
    const equal = await equalSites(ctx);
    const fairness = await smallBesideLarge(ctx);
    const load = os.loadavg().map((l) => round(l, 1));
    console.log(
      JSON.stringify(
        {
          bench: 'scale',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, load ${load.join(' ')}`,
          setup: { workers: WORKERS, limitRpm: LIMIT_RPM, latencyMs: LATENCY_MS, maxInFlight: 60, scansPerWorker: 10 },
          equalSites: equal,
          smallBesideLarge: fairness,
          targets: {
            throughputAtLeast: 0.9,
            metThroughput: equal.throughputShareOfLimit >= 0.9,
            share429Below: 0.01,
            met429: equal.after10s.share429 < 0.01,
            spreadAtMost: 1.5,
            metSpread: equal.finishSeconds.ratio <= 1.5,
            smallRatioBelow: 2,
            metSmall: fairness.ratio < 2,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await stop(children);
    await closeContext(ctx);
    await clearPrefix();
  }
}

runBench(main);
