/**
 * bench/scan: a scan of 500 prompts x 6 providers (3,000 answers) run by the
 * scan job's own function against the simulator (a separate process).
 * 1. 200 ms simulated latency, per-provider concurrency 10: wall time against
 *    the ideal (500 answers / 10 in flight x 0.2 s = 10 s); target 90%+. The
 *    ideal assumes one request per answer, so AI Overviews answer inline here.
 * 2. The same with AI Overviews as SerpApi serves them: about half come as a
 *    `page_token` that needs a second request, so that provider's lane needs
 *    about 750 requests; its ideal is counted from the requests the simulator saw.
 * 3. 0 ms latency: answers stored per second by one worker process; target 1,000+/s.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext, type AppContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { addMember } from '../src/domain/workspace/members.ts';
import { createOrg, setOrgLimits } from '../src/domain/workspace/orgs.ts';
import { runScan } from '../src/domain/scans/run.ts';
import { startScan } from '../src/domain/scans/scans.ts';
import { createSite } from '../src/domain/sites/sites.ts';
import { createUser } from '../src/domain/workspace/users.ts';
import { usdToMicros } from '../src/money.ts';
import { runBench } from './lib.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench_scan';
const SIM_PORT = 18410;
const SIM_URL = `http://127.0.0.1:${SIM_PORT}`;
const PROMPTS = 500;
const CONCURRENCY = 10;

async function waitFor(url: string) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} never answered`);
}

/** Every request answers after `ms`; `pageToken: false` makes AI Overviews answer inline (one request each). */
async function setLatency(ms: number, options: { pageToken?: boolean } = {}) {
  await fetch(`${SIM_URL}/__sim/script`, { method: 'DELETE' });
  await fetch(`${SIM_URL}/__sim/requests`, { method: 'DELETE' });
  const script = { provider: null, match: '', latencyMs: ms, ...(options.pageToken === undefined ? {} : { pageToken: options.pageToken }) };
  await fetch(`${SIM_URL}/__sim/script`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(script) });
}

/** The most requests any one provider received since the log was cleared. */
async function busiestProviderRequests(): Promise<number> {
  const body = (await (await fetch(`${SIM_URL}/__sim/requests`)).json()) as { counts: Record<string, number> };
  return Math.max(...Object.values(body.counts));
}

async function scanOnce(ctx: AppContext, label: string) {
  const org = await createOrg(ctx.db, { name: `Bench scan ${label}`, plan: 'enterprise', balanceMicros: usdToMicros(10_000) });
  await setOrgLimits(ctx.db, org.id, { promptsPerSite: 5000 });
  const user = await createUser(ctx.db, { email: `bench-scan-${Date.now()}-${label}@example.com`, name: 'Bench' });
  await addMember(ctx, { orgId: org.id, userId: user.id, role: 'owner' });
  const site = await createSite(
    ctx,
    { orgId: org.id, userId: user.id },
    { name: 'Acme', url: `acme-${Date.now()}-${label}.com`, competitors: [{ name: 'Globex' }, { name: 'Initech' }] },
  );
  await ctx.db
    .insertInto('prompts')
    .values(Array.from({ length: PROMPTS }, (_, i) => ({ siteId: site.id, text: `Which Acme alternative is best for use case ${i}?`, status: 'active' as const })))
    .execute();
  const row = await ctx.db.selectFrom('sites').selectAll().where('id', '=', site.id).executeTakeFirstOrThrow();
  const { scan } = await startScan(ctx, row, user.id, { label });
  const t0 = performance.now();
  const result = await runScan(ctx, scan.id);
  const seconds = (performance.now() - t0) / 1000;
  const done = await ctx.db.selectFrom('scans').select(['answersDone', 'answersFailed', 'status']).where('id', '=', scan.id).executeTakeFirstOrThrow();
  return { status: result.status, answers: done.answersDone, failed: done.answersFailed, seconds: Math.round(seconds * 100) / 100 };
}

async function main() {
  await ensureDatabase(DATABASE_URL);
  const sim = spawn(process.execPath, [path.resolve('src/cli/main.ts'), 'simulator', '--port', String(SIM_PORT)], { stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn' } });
  try {
    await waitFor(`${SIM_URL}/__sim/health`);
    // The bench queues nothing: it calls the job's function directly, so no job runs twice.
    const config = loadConfig({
      DATABASE_URL,
      LOG_LEVEL: 'warn',
      ASSISTANTS: 'simulator',
      SIMULATOR_URL: SIM_URL,
      ASSISTANT_CONCURRENCY: String(CONCURRENCY),
      REDIS_PREFIX: `bench-scan-${process.pid}`,
    });
    const ctx = createContext(config, { role: 'worker', dbPoolSize: 40 });
    await migrateToLatest(ctx.db);
    try {
      // BENCH_SCAN=fast runs only the 0 ms case, after a warm-up scan (for profiling).
      const full = process.env.BENCH_SCAN !== 'fast';
      const skipped = { status: 'skipped', answers: 0, failed: 0, seconds: 1 };
      await setLatency(200, { pageToken: false });
      const slow = full ? await scanOnce(ctx, 'latency-200') : skipped;
      const ideal = (PROMPTS / CONCURRENCY) * 0.2;
      await setLatency(200);
      const mixed = full ? await scanOnce(ctx, 'latency-200-page-tokens') : skipped;
      const mixedIdeal = full ? ((await busiestProviderRequests()) / CONCURRENCY) * 0.2 : 1;
      await setLatency(0);
      // The fast-only run warms up on a first scan (the full run is warm from the 200 ms ones).
      if (!full) await scanOnce(ctx, 'warm-up');
      const fast = await scanOnce(ctx, 'latency-0');
      const perSecond = Math.round(fast.answers / fast.seconds);
      console.log(
        JSON.stringify(
          {
            bench: 'scan',
            date: new Date().toISOString().slice(0, 10),
            machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
            answers: PROMPTS * 6,
            latency200ms: { ...slow, idealSeconds: ideal, efficiency: Math.round((ideal / slow.seconds) * 1000) / 10 },
            latency200msWithPageTokens: { ...mixed, idealSeconds: Math.round(mixedIdeal * 100) / 100, efficiency: Math.round((mixedIdeal / mixed.seconds) * 1000) / 10 },
            latency0ms: { ...fast, answersPerSecond: perSecond },
            targets: { efficiencyAtLeastPct: 90, met200: ideal / slow.seconds >= 0.9, answersPerSecondAtLeast: 1000, met0: perSecond >= 1000 },
          },
          null,
          2,
        ),
      );
    } finally {
      await closeContext(ctx);
    }
  } finally {
    sim.kill('SIGTERM');
  }
}

runBench(main);
