import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';
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

/** Redis stopped for 20 s (and back empty: it keeps nothing on disk) under API traffic, with a scan running. */
let app: TestApp;
let ws: Org;
let worker: ChildProcess | null = null;
// Long enough (200 x 500 ms, 4 at a time) to outlast the outage, so the run dies with its lock and is resumed.
const PROMPTS = 200;

beforeAll(async () => {
  app = await startTestApp({ simulator: true, env: FAULT_ENV });
  ws = await seedOrg(app.ctx, { balanceUsd: 100 });
});
afterAll(async () => {
  kill(worker);
  await service('start', 'redis');
  await app?.close();
});

async function timed(method: string, path: string, body?: unknown): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${app.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${ws.keys.admin}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.text();
  return { status: res.status, ms: Date.now() - started };
}

describe('Redis down for 20 s under API traffic', () => {
  it('answers without hanging (503 where Redis is needed), recovers by itself, and the scan completes exactly once', async () => {
    const { scanId } = await startSlowScan(app, ws, 'Redisdown', PROMPTS, 500);
    const other = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Queued later', url: 'queued-later.com' },
    });
    await addActivePrompts(app.ctx, other.body.project.id, ['Which Queued later tool?']);
    worker = spawnWorker(app);
    while ((await scanRow(app, scanId)).answersDone < 8) await sleep(20);
    await service('stop', 'redis');
    const down = Date.now();
    const reads: { status: number; ms: number }[] = [];
    const starts: { status: number; ms: number }[] = [];
    while (Date.now() - down < 20_000) {
      reads.push(await timed('GET', `/projects/${other.body.project.id}`));
      starts.push(await timed('POST', `/projects/${other.body.project.id}/scans/estimate`, { providers: ['openai'] }));
      await sleep(500);
    }
    const enqueue = await timed('POST', `/projects/${other.body.project.id}/reanalyse`);
    await service('start', 'redis');
    const seconds = await waitForFinal(app, scanId, 120_000);
    const result = await outcome(app, ws, scanId, PROMPTS);
    // The API's connection comes back by itself (ioredis reconnects with a back-off).
    let after = await timed('POST', `/projects/${other.body.project.id}/reanalyse`);
    for (let i = 0; after.status !== 200 && i < 60; i++) {
      await sleep(500);
      after = await timed('POST', `/projects/${other.body.project.id}/reanalyse`);
    }
    console.log(
      `[fault] Redis stopped 20 s: reads ${JSON.stringify(reads.map((r) => `${r.status}/${r.ms}ms`))}, enqueue ${enqueue.status}/${enqueue.ms}ms; scan final ${seconds} s after restart`,
      JSON.stringify(result),
    );
    // Reads need only Postgres; nothing waits on Redis for long.
    expect(reads.every((r) => r.status === 200 && r.ms < 5_000)).toBe(true);
    expect(starts.every((r) => r.status === 200 && r.ms < 5_000)).toBe(true);
    expect(enqueue.status).toBe(503);
    expect(enqueue.ms).toBeLessThan(10_000);
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
