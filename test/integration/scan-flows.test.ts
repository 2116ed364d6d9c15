import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { defaultModel, findModel } from '../../src/assistants/catalog.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { runScanTick } from '../../src/domain/scans/schedule.ts';
import { fixedClock } from '../../src/clock.ts';
import { BUSY } from '../../src/domain/common/site-lock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

let app: TestApp;
let ws: Org;

async function newSite(name: string, prompts: number): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  await addActivePrompts(
    app.ctx,
    res.body.project.id,
    Array.from({ length: prompts }, (_, i) => `Which ${name} tool is best for case ${i}?`),
  );
  return res.body.project.id;
}

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true, env: { SCAN_POLL_MS: '200', JOB_LOCK_MS: '2000' } });
  ws = await seedOrg(app.ctx, { balanceUsd: 100 });
});
afterAll(() => app.close());

describe('batch and queue models', () => {
  it('submits a batch at half price, re-delays to poll, and stores the results', async () => {
    const siteId = await newSite('Batchy', 4);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'perplexity'], batch: true },
    });
    expect(start.status).toBe(200);
    expect(start.body.estimate.providers).toEqual([
      expect.objectContaining({
        provider: 'openai',
        batch: true,
        costPerAnswerUsd: (defaultModel('openai').batchPriceMicros as number) / 1e6,
      }),
      expect.objectContaining({ provider: 'perplexity', batch: false }),
    ]);
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id, 30_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 8, batch: true });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(
      4 * (defaultModel('openai').batchPriceMicros as number) + 4 * defaultModel('perplexity').priceMicros,
    );
    expect(money.scanReserved).toBe(0);
    const batches = await app.ctx.db
      .selectFrom('scanBatches')
      .select(['provider', 'status'])
      .where('scanId', '=', start.body.scan.id)
      .execute();
    expect(batches).toEqual([{ provider: 'openai', status: 'done' }]);
  });

  it('submits queue models (chatgpt-app-queue) and polls them', async () => {
    const siteId = await newSite('Queued', 3);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'], models: { openai: 'chatgpt-app-queue' } },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id, 30_000);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 3 });
    expect(done.answers.every((a: { model: string }) => a.model.length > 0)).toBe(true);
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(3 * (findModel('openai', 'chatgpt-app-queue')?.priceMicros as number));
  });
});

describe('exactly once', () => {
  it('a scan delivered twice at once is run once: no double answers or charges', async () => {
    const siteId = await newSite('Twice', 6);
    await script(app, { provider: null, match: 'Twice tool', latencyMs: 50 });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'gemini'] },
    });
    const scanId = start.body.scan.id as number;
    // Two more runs of the same scan alongside the queued job, as a redelivered job would.
    const extra = await Promise.allSettled([runScan(app.ctx, scanId), runScan(app.ctx, scanId)]);
    const done = await waitForScan(app, ws.keys.viewer, siteId, scanId);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 12 });
    // At least one found the site locked by another run (BUSY; the job layer would re-delay it) or lost the lock.
    expect(extra.some((r) => r.status === 'rejected' || r.value === BUSY)).toBe(true);
    const money = await moneyFacts(app.ctx, ws.orgId, scanId);
    expect(money).toMatchObject({ charges: 12, answered: 12, scanReserved: 0 });
    expect(money.charged).toBe(money.answersCost);
  });
});

describe('schedules', () => {
  it('the nightly tick starts due sites with saved settings and schedule batch, trigger schedule, and moves the next date', async () => {
    const siteId = await newSite('Nightly', 2);
    await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { providers: ['openai'] }, scanFrequencyDays: 3 },
    });
    await app.request('PATCH', `/projects/${siteId}/schedule`, { key: ws.keys.admin, body: { enabled: true } });
    const site = await app.ctx.db
      .selectFrom('sites')
      .select('nextScanAt')
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow();
    const night = site.nextScanAt as Date;
    const clock = fixedClock(new Date(night.getTime() + 5_000));
    const result = await runScanTick({ ...app.ctx, clock });
    expect(result.started).toBeGreaterThanOrEqual(1);
    const scans = await app.request('GET', `/projects/${siteId}/scans`, { key: ws.keys.viewer });
    expect(scans.body.scans[0]).toMatchObject({ trigger: 'schedule', batch: true, providers: ['openai'] });
    const after = await app.ctx.db
      .selectFrom('sites')
      .select('nextScanAt')
      .where('id', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(after.nextScanAt?.toISOString()).toBe(new Date(night.getTime() + 3 * 86_400_000).toISOString());
    const again = await runScanTick({ ...app.ctx, clock });
    expect(again.started).toBe(0);
    await waitForScan(app, ws.keys.viewer, siteId, scans.body.scans[0].id, 30_000);
  });

  it('the worker registers the nightly job scheduler at 00:00 UTC', async () => {
    const schedulers = await app.ctx.jobs.queue('schedule').getJobSchedulers();
    expect(schedulers).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: 'scan-tick', pattern: '0 0 * * *', tz: 'UTC' }),
        expect.objectContaining({ key: 'scan-reconcile', every: 60000 }),
      ]),
    );
  });
});

describe('money after every scan of this file', () => {
  it('holds every invariant of sightline money check', async () => {
    // Scans still finishing in workers settle first.
    await expect.poll(async () => (await checkMoney(app.ctx)).problems, { timeout: 15_000, interval: 200 }).toEqual([]);
  });
});
