import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

/** No in-process workers here: the scan runs only in worker processes this test starts and kills. */
let app: TestApp;
let ws: Org;
let worker: ChildProcess | null = null;

const spawnWorker = () =>
  spawn(path.resolve('node_modules/.bin/node'), [path.resolve('src/cli/main.ts'), 'worker', '--queues', 'scan'], {
    env: { ...process.env, ...app.env, SIMULATOR_URL: app.simulatorUrl ?? '', LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });

beforeAll(async () => {
  app = await startTestApp({ simulator: true, env: { SCAN_POLL_MS: '200', JOB_LOCK_MS: '2000' } });
  ws = await seedOrg(app.ctx, { balanceUsd: 100 });
});
afterAll(async () => {
  worker?.kill('SIGKILL');
  await app.close();
});

describe('a worker process killed mid-scan', () => {
  it('resumes on a new worker: the scan completes, nothing is asked or charged twice', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Killed', url: 'killed.com' },
    });
    const siteId = site.body.project.id as number;
    await addActivePrompts(
      app.ctx,
      siteId,
      Array.from({ length: 24 }, (_, i) => `Which Killed tool is best for case ${i}?`),
    );
    await script(app, { provider: null, match: 'Killed tool', latencyMs: 150 });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['anthropic'] },
    });
    const scanId = start.body.scan.id as number;

    worker = spawnWorker();
    const answered = async () =>
      (await app.ctx.db.selectFrom('scans').select(['answersDone']).where('id', '=', scanId).executeTakeFirstOrThrow())
        .answersDone;
    await expect.poll(answered, { timeout: 20_000, interval: 20 }).toBeGreaterThan(0);
    worker.kill('SIGKILL');
    const atKill = await answered();
    expect(atKill).toBeLessThan(24);
    // Read after the kill: an answer committed in that instant only widens the set of prompts allowed a second ask.
    const storedAtKill = new Set(
      (
        await app.ctx.db
          .selectFrom('answers as a')
          .innerJoin('prompts as p', 'p.id', 'a.promptId')
          .select('p.text')
          .where('a.scanId', '=', scanId)
          .execute()
      ).map((r) => r.text),
    );
    // Calls that were in flight hold reservations until the scan resumes.
    worker = spawnWorker();
    const done = await waitForScan(app, ws.keys.viewer, siteId, scanId, 45_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 24, answersFailed: 0 });
    const money = await moneyFacts(app.ctx, ws.orgId, scanId);
    expect(money).toMatchObject({
      charges: 24,
      answered: 24,
      scanReserved: 0,
      orgReserved: 0,
      charged: 24 * defaultModel('anthropic').priceMicros,
    });
    expect(money.balance).toBe(money.ledgerBalance);
    const asked = (
      (await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json()) as { requests: { prompt: string }[] }
    ).requests;
    // Calls in flight at the kill, and answers still waiting for their batch write, were never stored: those
    // prompts may be asked a second time (never charged twice). A prompt stored before the kill is asked once.
    const timesAsked = new Map<string, number>();
    for (const r of asked) timesAsked.set(r.prompt, (timesAsked.get(r.prompt) ?? 0) + 1);
    expect(timesAsked.size).toBe(24);
    for (const [prompt, times] of timesAsked) {
      expect(times, prompt).toBeLessThanOrEqual(storedAtKill.has(prompt) ? 1 : 2);
    }
  }, 60_000);
});

describe('money after every scan of this file', () => {
  it('holds every invariant of sightline money check', async () => {
    // Scans still finishing in workers settle first.
    await expect.poll(async () => (await checkMoney(app.ctx)).problems, { timeout: 15_000, interval: 200 }).toEqual([]);
  });
});
