import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import {
  FAULT_ENV,
  kill,
  outcome,
  scanRow,
  service,
  sleep,
  spawnWorker,
  startSlowScan,
  waitForFinal,
} from './helpers.ts';

/** PostgreSQL stopped for 20 s in the middle of a scan, with the API being called. */
let app: TestApp;
let ws: Org;
let worker: ChildProcess | null = null;
const PROMPTS = 60;

beforeAll(async () => {
  app = await startTestApp({ simulator: true, env: FAULT_ENV });
  ws = await seedOrg(app.ctx, { balanceUsd: 100 });
});
afterAll(async () => {
  kill(worker);
  await service('start', 'postgres');
  await app?.close();
});

async function timed(path: string): Promise<{ status: number; ms: number; body: unknown }> {
  const started = Date.now();
  const res = await fetch(`${app.url}${path}`, { headers: { authorization: `Bearer ${ws.keys.viewer}` } });
  return { status: res.status, ms: Date.now() - started, body: await res.json() };
}

describe('PostgreSQL down for 20 s mid-scan', () => {
  it('answers 503 without hanging meanwhile, recovers by itself, and the scan completes exactly once', async () => {
    const { scanId } = await startSlowScan(app, ws, 'Pgdown', PROMPTS);
    worker = spawnWorker(app);
    while ((await scanRow(app, scanId)).answersDone < 8) await sleep(20);
    await service('stop', 'postgres');
    const down = Date.now();
    const during: { status: number; ms: number }[] = [];
    while (Date.now() - down < 20_000) {
      during.push(await timed(`/orgs/${ws.orgId}/projects`));
      await sleep(1_000);
    }
    const ready = await timed('/readyz');
    await service('start', 'postgres');
    const back = Date.now();
    const seconds = await waitForFinal(app, scanId, 120_000);
    let after = await timed(`/orgs/${ws.orgId}/projects`);
    while (after.status !== 200 && Date.now() - back < 30_000) after = await timed(`/orgs/${ws.orgId}/projects`);
    const result = await outcome(app, ws, scanId, PROMPTS);
    console.log(
      `[fault] Postgres stopped 20 s: API during ${JSON.stringify(during.map((d) => `${d.status}/${d.ms}ms`))}; scan final ${seconds} s after restart`,
      JSON.stringify(result),
    );
    expect(during.every((d) => d.status === 503 && d.ms < 10_000)).toBe(true);
    expect(ready).toMatchObject({ status: 503, body: { status: 'unavailable', postgres: 'unavailable', redis: 'ok' } });
    expect(after.status).toBe(200);
    expect(result).toMatchObject({
      status: 'done',
      lost: 0,
      storedTwice: 0,
      chargedTwice: 0,
      overspend: 0,
      moneyProblems: [],
    });
    expect(result.charged).toBe(result.expectedCharge);
  });
});
