import { UnrecoverableError, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { runScanReconcile } from '../../src/domain/scans/reconcile.ts';
import { reserveUnits } from '../../src/domain/scans/purse-sql.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts } from '../helpers/scans.ts';

/**
 * No worker runs here: each case leaves a scan in the state a crash or lost
 * Redis data leaves it, then runs the reconciler and checks the repair.
 * JOB_LOCK_MS 1000 makes a scan old enough to reconcile after 2 s.
 */
let app: TestApp;
let ws: Org;
let n = 0;

beforeAll(async () => {
  app = await startTestApp({ simulator: true, env: { JOB_LOCK_MS: '1000' } });
  ws = await seedOrg(app.ctx, { balanceUsd: 50 });
});
afterAll(() => app?.close());

async function startedScan(): Promise<{ siteId: number; scanId: number }> {
  n++;
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: `Rec${n}`, url: `rec${n}.com` },
  });
  const siteId = site.body.project.id as number;
  await addActivePrompts(app.ctx, siteId, [
    `Which Rec${n} tool is best?`,
    `Is Rec${n} any good?`,
    `Rec${n} or something else?`,
  ]);
  const start = await app.request('POST', `/projects/${siteId}/scans`, {
    key: ws.keys.admin,
    body: { providers: ['openai'] },
  });
  expect(start.status).toBe(200);
  await new Promise((r) => setTimeout(r, 2050));
  return { siteId, scanId: start.body.scan.id as number };
}

const scanJob = (scanId: number) => app.ctx.jobs.queue('scan').getJob(`scan-${scanId}`);
const status = async (scanId: number) =>
  (
    await app.ctx.db
      .selectFrom('scans')
      .select(['status', 'stopReason'])
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow()
  ).status;

/** Fails the scan's job the way a worker would, with the given attempts. */
async function failJob(scanId: number, attempts: number, error: Error): Promise<void> {
  await (await scanJob(scanId))?.remove();
  const queue = app.ctx.jobs.queue('scan');
  await queue.add('scan', { scanId }, { jobId: `scan-${scanId}`, attempts });
  const worker = new Worker(
    'scan',
    async () => {
      throw error;
    },
    { connection: app.ctx.redis.duplicate({ maxRetriesPerRequest: null }), prefix: app.config.redisPrefix },
  );
  await expect.poll(async () => (await scanJob(scanId))?.getState(), { timeout: 10_000 }).toBe('failed');
  await worker.close();
}

describe('the scan reconciler', () => {
  it('leaves a scan with a live job alone', async () => {
    const { scanId } = await startedScan();
    expect(await (await scanJob(scanId))?.getState()).toBe('waiting');
    const result = await runScanReconcile(app.ctx);
    expect(result.resumed).not.toContain(scanId);
    expect(await status(scanId)).toBe('queued');
    await runScan(app.ctx, scanId);
  });

  it('queues again a scan whose job is gone (Redis lost its data), and the resumed scan completes once', async () => {
    const { scanId } = await startedScan();
    await (await scanJob(scanId))?.remove();
    const result = await runScanReconcile(app.ctx);
    expect(result.resumed).toContain(scanId);
    expect(await (await scanJob(scanId))?.getState()).toBe('waiting');
    await runScan(app.ctx, scanId);
    expect(await status(scanId)).toBe('done');
    const money = await moneyFacts(app.ctx, ws.orgId, scanId);
    expect(money).toMatchObject({ charges: 3, answered: 3, scanReserved: 0 });
    expect(money.balance).toBe(money.ledgerBalance);
  });

  it('ends a cancelling scan with no job and releases what it held', async () => {
    const { siteId, scanId } = await startedScan();
    const ref = { scanId, siteId, orgId: ws.orgId };
    // A dead worker's calls in flight: money held, no answer stored.
    expect((await reserveUnits(app.ctx, ref, 1000, 2)).granted).toBe(2);
    await app.ctx.db.updateTable('scans').set({ status: 'cancelling' }).where('id', '=', scanId).execute();
    await (await scanJob(scanId))?.remove();
    const result = await runScanReconcile(app.ctx);
    expect(result.cancelled).toContain(scanId);
    expect(await status(scanId)).toBe('cancelled');
    const money = await moneyFacts(app.ctx, ws.orgId, scanId);
    expect(money).toMatchObject({ scanReserved: 0, charges: 0 });
    expect(money.balance).toBe(money.ledgerBalance);
    // The site can scan again.
    expect(
      (await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: { providers: ['openai'] } }))
        .status,
    ).toBe(200);
  });

  it('fails a scan whose job used its last attempt, with its money settled', async () => {
    const { siteId, scanId } = await startedScan();
    expect((await reserveUnits(app.ctx, { scanId, siteId, orgId: ws.orgId }, 1000, 1)).granted).toBe(1);
    await failJob(scanId, 1, new Error('provider down'));
    const result = await runScanReconcile(app.ctx);
    expect(result.failed).toContain(scanId);
    expect(await status(scanId)).toBe('failed');
    expect(await moneyFacts(app.ctx, ws.orgId, scanId)).toMatchObject({ scanReserved: 0 });
  });

  it('resumes a scan whose job failed without using its attempts (stalled too often)', async () => {
    const { scanId } = await startedScan();
    await failJob(scanId, 5, new UnrecoverableError('job stalled more than allowable limit'));
    const result = await runScanReconcile(app.ctx);
    expect(result.resumed).toContain(scanId);
    expect(await (await scanJob(scanId))?.getState()).toBe('waiting');
    await runScan(app.ctx, scanId);
    expect(await status(scanId)).toBe('done');
  });
});

describe('money after every scan of this file', () => {
  it('holds every invariant of sightline money check', async () => {
    // Scans still finishing in workers settle first.
    await expect.poll(async () => (await checkMoney(app.ctx)).problems, { timeout: 15_000, interval: 200 }).toEqual([]);
  });
});
