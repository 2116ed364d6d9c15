import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import type { TestApp } from '../helpers/app.ts';
import type { Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script } from '../helpers/scans.ts';

const run = promisify(execFile);

/** Env of a fault test's app and workers: short locks and a reconciler every 2 s, so repairs happen within seconds. */
export const FAULT_ENV = { SCAN_POLL_MS: '200', JOB_LOCK_MS: '2000', SCAN_RECONCILE_MS: '2000' };

export async function service(action: 'stop' | 'start', name: 'postgres' | 'redis'): Promise<void> {
  await run('bash', [path.resolve('scripts/fault-service.sh'), action, name], { timeout: 60_000 });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A worker process of the scan and schedule queues, as `sightline worker` runs in production; FAULT_WORKER_LOG=file keeps its log (debug) there. */
export function spawnWorker(app: TestApp): ChildProcess {
  return spawn(
    path.resolve('node_modules/.bin/node'),
    [path.resolve('src/cli/main.ts'), 'worker', '--queues', 'scan,schedule'],
    {
      env: {
        ...process.env,
        ...app.env,
        SIMULATOR_URL: app.simulatorUrl ?? '',
        LOG_LEVEL: process.env.FAULT_WORKER_LOG ? 'debug' : 'silent',
      },
      stdio: process.env.FAULT_WORKER_LOG
        ? ['ignore', fs.openSync(process.env.FAULT_WORKER_LOG, 'a'), fs.openSync(process.env.FAULT_WORKER_LOG, 'a')]
        : 'ignore',
    },
  );
}

export function kill(worker: ChildProcess | null): void {
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
}

/** A site of `prompts` active prompts whose scan (one assistant, slow answers) takes a few seconds. */
export async function startSlowScan(
  app: TestApp,
  ws: Org,
  name: string,
  prompts: number,
  latencyMs = 150,
): Promise<{ siteId: number; scanId: number }> {
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  const siteId = site.body.project.id as number;
  await addActivePrompts(
    app.ctx,
    siteId,
    Array.from({ length: prompts }, (_, i) => `Which ${name} tool is best for case ${i}?`),
  );
  await script(app, { provider: null, match: `${name} tool`, latencyMs });
  const start = await app.request('POST', `/projects/${siteId}/scans`, {
    key: ws.keys.admin,
    body: { providers: ['anthropic'] },
  });
  if (start.status !== 200) throw new Error(`scan not started: ${start.status} ${JSON.stringify(start.body)}`);
  return { siteId, scanId: start.body.scan.id as number };
}

export async function scanRow(app: TestApp, scanId: number) {
  return app.ctx.db
    .selectFrom('scans')
    .select(['status', 'answersDone', 'answersFailed', 'answersTotal', 'spentMicros', 'budgetMicros'])
    .where('id', '=', scanId)
    .executeTakeFirstOrThrow();
}

/** Waits until the scan has a final status (reading through database hiccups); the seconds it took. */
export async function waitForFinal(app: TestApp, scanId: number, timeoutMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    const row = await scanRow(app, scanId).catch(() => null);
    if (row && ['done', 'failed', 'cancelled'].includes(row.status))
      return Math.round((Date.now() - started) / 100) / 10;
    if (Date.now() - started > timeoutMs)
      throw new Error(`scan ${scanId} still ${row?.status ?? 'unreadable'} after ${timeoutMs} ms`);
    await sleep(250);
  }
}

/** What every fault test asserts at the end: nothing lost, nothing asked or charged twice, no overspend, money consistent. */
export async function outcome(app: TestApp, ws: Org, scanId: number, prompts: number) {
  const row = await scanRow(app, scanId);
  const money = await moneyFacts(app.ctx, ws.orgId, scanId);
  const answers = await app.ctx.db
    .selectFrom('answers')
    .select(['promptId', 'provider'])
    .where('scanId', '=', scanId)
    .execute();
  const distinct = new Set(answers.map((a) => `${a.promptId}|${a.provider}`)).size;
  const asked = (
    (await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json()) as { requests: { body?: string }[] }
  ).requests.length;
  return {
    status: row.status,
    stored: answers.length,
    lost: prompts - distinct,
    storedTwice: answers.length - distinct,
    chargedTwice: money.charges - distinct,
    overspend: Math.max(0, row.spentMicros - row.budgetMicros),
    charged: money.charged,
    expectedCharge: distinct * defaultModel('anthropic').priceMicros,
    reAsked: asked - distinct,
    moneyProblems: (await checkMoney(app.ctx)).problems,
  };
}
