import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { FAULT_ENV, kill, outcome, scanRow, sleep, spawnWorker, startSlowScan, waitForFinal } from './helpers.ts';

/** A worker SIGKILLed twice during one scan, each time replaced by a new one. */
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
  await app?.close();
});

async function killAfterMoreAnswers(scanId: number, atLeast: number): Promise<number> {
  for (;;) {
    const row = await scanRow(app, scanId);
    if (row.answersDone >= atLeast) break;
    await sleep(20);
  }
  kill(worker);
  return (await scanRow(app, scanId)).answersDone;
}

describe('a worker killed twice mid-scan', () => {
  it('ends the scan done: nothing lost, asked or charged twice, no overspend', async () => {
    const { scanId } = await startSlowScan(app, ws, 'Twicekilled', PROMPTS);
    worker = spawnWorker(app);
    const first = await killAfterMoreAnswers(scanId, 8);
    worker = spawnWorker(app);
    const second = await killAfterMoreAnswers(scanId, first + 8);
    expect(second).toBeLessThan(PROMPTS);
    worker = spawnWorker(app);
    const seconds = await waitForFinal(app, scanId, 120_000);
    const result = await outcome(app, ws, scanId, PROMPTS);
    console.log(`[fault] worker killed twice: final in ${seconds} s after the last restart`, JSON.stringify(result));
    expect(result).toMatchObject({
      status: 'done',
      lost: 0,
      storedTwice: 0,
      chargedTwice: 0,
      overspend: 0,
      moneyProblems: [],
    });
    expect(result.charged).toBe(result.expectedCharge);
    // What a killed worker held unstored is asked again, never charged twice: its calls in flight (4 at a time) and
    // the answers it had but had not committed (the answer writer's writes in flight and queued, each holding what
    // arrived in one linger: 28-32 in all on this session's machine, the same on the code before it, against the
    // 24 the old bound of "in flight only" allowed).
    const HELD_PER_KILL = 4 + 16;
    expect(result.reAsked).toBeLessThanOrEqual(2 * HELD_PER_KILL);
  });
});
