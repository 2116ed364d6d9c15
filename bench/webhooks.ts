/**
 * bench/webhooks (issue 27, item 9). A real `sightline worker` process (the
 * webhook and schedule queues, default concurrency) delivers to a local
 * receiver through SITE_FETCH_MAP, as production delivers through the fetch
 * guard, each delivery signed and on a connection of its own.
 *
 * 1. Fan-out: 1,000 webhooks of one workspace subscribed to scan.completed;
 *    one scan ends (the real `endScan`: its final update writes the event and
 *    the 1,000 deliveries in one transaction, then queues them). Target: all
 *    delivered within 10 s. Reported: the worker's CPU per delivery
 *    (utime + stime of its process from /proc), every signature verified.
 * 2. Latency: 200 scans of a site with one webhook end one after another;
 *    for each, the time from the call that ends it to its first delivery
 *    arriving. Target: p99 under 2 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { endScan } from '../src/domain/scans/run.ts';
import { webhookCreateSchema } from '../src/domain/webhooks/schemas.ts';
import { createWebhook } from '../src/domain/webhooks/webhooks.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

// A database of its own: this branch's migrations must not land in the database other benches share.
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_webhooks';
const REDIS_PREFIX = 'sightline-bench-webhooks';
const WEBHOOKS = 1_000;
const FANOUT_TARGET_MS = 10_000;
const LATENCY_RUNS = 200;
const P99_TARGET_MS = 2_000;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** utime + stime of a process in seconds (/proc/<pid>/stat). */
function processCpu(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

interface Got {
  at: number;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function clearPrefix(redisUrl: string) {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
const round1 = (n: number) => Math.round(n * 10) / 10;

async function until(done: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A running scan of the site, ended by the real endScan (settle, release, final update with its events). */
async function endOneScan(ctx: AppContext, orgId: number, siteId: number): Promise<number> {
  const scan = await ctx.db
    .insertInto('scans')
    .values({
      orgId,
      siteId,
      status: 'running',
      trigger: 'manual',
      budgetMicros: 1_000_000,
      plan: JSON.stringify({ providers: ['openai'], samples: 1 }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await endScan(ctx, { scanId: scan.id, siteId, orgId }, null);
  return scan.id;
}

async function main() {
  const received: Got[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        at: performance.now(),
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  await ensureDatabase(DATABASE_URL);
  const env = {
    DATABASE_URL,
    REDIS_PREFIX,
    LOG_LEVEL: 'warn',
    SITE_FETCH_MAP: `hooks.bench=${receiverUrl}`,
    SITE_FETCH_OUTBOUND: 'off',
    WEBHOOKS_PER_WORKSPACE: String(WEBHOOKS + 1),
  };
  const config = loadConfig(env);
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 4 });
  await clearPrefix(config.redisUrl);
  const worker = spawn(
    path.join(ROOT, 'node_modules/.bin/node'),
    [path.join(ROOT, 'src/cli/main.ts'), 'worker', '--queues', 'webhook,schedule'],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  try {
    await migrateToLatest(ctx.db);
    const stamp = Date.now();

    // 1. One event, 1,000 webhooks.
    const org = await createOrg(ctx, { name: `Bench webhooks ${stamp}`, plan: 'enterprise' });
    const site = await ctx.db
      .insertInto('sites')
      .values({ orgId: org.id, name: 'Bench', url: 'https://bench-hooks.com', domain: 'bench-hooks.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const secrets = new Map<string, string>();
    for (let i = 0; i < WEBHOOKS; i++) {
      const { webhook } = await createWebhook(
        ctx,
        { orgId: org.id, userId: null },
        webhookCreateSchema.parse({ url: `https://hooks.bench/fanout/${i}`, events: ['scan.completed'] }),
      );
      secrets.set(`/fanout/${i}`, webhook.secret);
    }
    // The worker is up when it has delivered a first event (its start-up is not what is measured).
    const warm = await createWebhook(
      ctx,
      { orgId: org.id, userId: null },
      webhookCreateSchema.parse({ url: 'https://hooks.bench/warm', events: ['webhook.test'] }),
    );
    const { testWebhook } = await import('../src/domain/webhooks/deliveries.ts');
    await testWebhook(ctx, org.id, warm.webhook.id);
    await until(() => received.length >= 1, 60_000, 'the worker starting');
    received.length = 0;

    const cpuBefore = processCpu(worker.pid as number);
    const started = performance.now();
    await endOneScan(ctx, org.id, site.id);
    const ended = performance.now();
    await until(() => received.length >= WEBHOOKS, 60_000, `${WEBHOOKS} deliveries`);
    const allMs = performance.now() - started;
    // The worker settles its last records (attempt rows) just after the receiver answered.
    await new Promise((r) => setTimeout(r, 500));
    const workerCpuMs = (processCpu(worker.pid as number) - cpuBefore) * 1000;
    const ids = new Set(received.map((r) => r.headers['webhook-id']));
    const delivered = await ctx.db
      .selectFrom('webhookDeliveries as d')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
      .where('e.orgId', '=', org.id)
      .where('e.type', '=', 'scan.completed')
      .where('d.status', '=', 'delivered')
      .executeTakeFirstOrThrow();
    const fanout = {
      webhooks: WEBHOOKS,
      distinctWebhookIds: ids.size,
      msToAllDelivered: Math.round(allMs),
      msEndScanCall: Math.round(ended - started),
      msToFirstDelivery: Math.round(Math.min(...received.map((r) => r.at)) - started),
      deliveredRows: Number(delivered.n),
      workerCpuMsPerDelivery: Math.round((workerCpuMs / WEBHOOKS) * 1000) / 1000,
      deliveriesPerSecond: Math.round((WEBHOOKS / allMs) * 1000),
      target: `< ${FANOUT_TARGET_MS} ms`,
      met: allMs < FANOUT_TARGET_MS && Number(delivered.n) === WEBHOOKS,
    };
    // Every delivery verified with its own webhook's secret, by the standardwebhooks package.
    const signed = received.every((r) => {
      const secret = secrets.get(r.path);
      if (!secret) return false;
      try {
        new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
        return true;
      } catch {
        return false;
      }
    });

    // 2. Scan end to first delivery, 200 times.
    const org2 = await createOrg(ctx, { name: `Bench webhook latency ${stamp}`, plan: 'enterprise' });
    const site2 = await ctx.db
      .insertInto('sites')
      .values({ orgId: org2.id, name: 'Bench 2', url: 'https://bench-hooks2.com', domain: 'bench-hooks2.com' })
      .returning('id')
      .executeTakeFirstOrThrow();
    await createWebhook(
      ctx,
      { orgId: org2.id, userId: null },
      webhookCreateSchema.parse({ url: 'https://hooks.bench/latency', events: ['scan.completed'] }),
    );
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_RUNS; i++) {
      const before = received.length;
      const t0 = performance.now();
      await endOneScan(ctx, org2.id, site2.id);
      await until(() => received.length > before, 30_000, `scan ${i}'s delivery`);
      latencies.push((received[before] as Got).at - t0);
    }
    latencies.sort((a, b) => a - b);
    const latency = {
      runs: LATENCY_RUNS,
      p50Ms: round1(percentile(latencies, 0.5)),
      p95Ms: round1(percentile(latencies, 0.95)),
      p99Ms: round1(percentile(latencies, 0.99)),
      maxMs: round1(latencies.at(-1) as number),
      target: `p99 < ${P99_TARGET_MS} ms`,
      met: percentile(latencies, 0.99) < P99_TARGET_MS,
    };

    await ctx.db.deleteFrom('orgs').where('id', 'in', [org.id, org2.id]).execute();
    console.log(
      JSON.stringify(
        {
          bench: 'webhooks',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${os
            .loadavg()
            .map((l) => l.toFixed(1))
            .join(' ')}`,
          workerConcurrency: config.webhooks.workerConcurrency,
          fanout: { ...fanout, signaturesVerified: signed },
          latency,
        },
        null,
        2,
      ),
    );
    if (!fanout.met || !latency.met || !signed) process.exitCode = 1;
  } finally {
    worker.kill('SIGTERM');
    await clearPrefix(config.redisUrl);
    await closeContext(ctx);
    receiver.closeAllConnections();
    receiver.close();
  }
}

runBench(main);
