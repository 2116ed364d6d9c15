import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { releaseScanReservations, reserveUnits } from '../../src/domain/scans/purse-sql.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

/**
 * Block reservations (reserve_scan_units and the lanes' purses): a lane
 * reserves several calls at once, yet a scan makes exactly the calls its
 * budget, the site's cap and the workspace's balance allow, and gives back
 * whatever it reserved and did not use.
 */

let app: TestApp;

const price = (provider: Parameters<typeof defaultModel>[0]) => defaultModel(provider).priceMicros;

async function newSite(ws: Org, name: string, promptCount: number): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  await addActivePrompts(
    app.ctx,
    res.body.project.id,
    Array.from({ length: promptCount }, (_, i) => `Which ${name} tool suits team ${i}?`),
  );
  return res.body.project.id;
}

beforeAll(async () => {
  // Four calls in flight per provider: blocks of eight, refilled at four.
  app = await startTestApp({ workers: { concurrency: 4 }, simulator: true, env: { ASSISTANT_CONCURRENCY: '4' } });
});
afterAll(() => app.close());

describe('reserve_scan_units', () => {
  it('grants as many units as fit, says which limit stopped the rest, and grants nothing once full', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 5 });
    const siteId = await newSite(ws, 'Units', 3);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    // A scan row of our own to reserve against: budget for exactly 7 units at 1,000 micros.
    const scan = await app.ctx.db
      .insertInto('scans')
      .values({ orgId: ws.orgId, siteId, status: 'done', trigger: 'manual', budgetMicros: 7_000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    const ref = { orgId: ws.orgId, siteId, scanId: scan.id };
    expect(await reserveUnits(app.ctx, ref, 1_000, 5)).toEqual({ granted: 5, limitedBy: null });
    expect(await reserveUnits(app.ctx, ref, 1_000, 5)).toEqual({ granted: 2, limitedBy: 'budget' });
    expect(await reserveUnits(app.ctx, ref, 1_000, 5)).toEqual({ granted: 0, limitedBy: 'budget' });
    const held = await app.ctx.db
      .selectFrom('scans')
      .select('reservedMicros')
      .where('id', '=', scan.id)
      .executeTakeFirstOrThrow();
    expect(held.reservedMicros).toBe(7_000);

    // The site's cap binds before the budget when it is lower.
    await app.ctx.db
      .updateTable('scans')
      .set({ reservedMicros: 0, budgetMicros: 1_000_000 })
      .where('id', '=', scan.id)
      .execute();
    await app.ctx.db
      .updateTable('orgs')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', 7_000) }))
      .where('id', '=', ws.orgId)
      .execute();
    const spend = await app.ctx.db
      .selectFrom('siteSpend')
      .select(['spentMicros', 'reservedMicros'])
      .where('siteId', '=', siteId)
      .executeTakeFirstOrThrow();
    await app.ctx.db.updateTable('siteSpend').set({ reservedMicros: 0 }).where('siteId', '=', siteId).execute();
    await app.ctx.db
      .updateTable('sites')
      .set({ monthlyCapMicros: spend.spentMicros + 3_500 })
      .where('id', '=', siteId)
      .execute();
    expect(await reserveUnits(app.ctx, ref, 1_000, 5)).toEqual({ granted: 3, limitedBy: 'cap' });
    // Give back what this synthetic scan holds, as a scan's end does.
    await releaseScanReservations(app.ctx, ref);
  });
});

describe('scans reserving by the block', () => {
  it('stop at a budget that ends inside a block, with every unused unit given back', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 50 });
    const siteId = await newSite(ws, 'Blocks', 20);
    const budget = 9 * price('anthropic');
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['anthropic'], budgetUsd: budget / 1e6 },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', stopReason: 'budget', answersDone: 9, costUsd: budget / 1e6 });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money).toMatchObject({
      charged: budget,
      charges: 9,
      answered: 9,
      scanReserved: 0,
      orgReserved: 0,
      scanSpent: budget,
    });
    expect(money.balance).toBe(money.ledgerBalance);
  });

  it('give back the units of calls that failed and of a lane that ran out of prompts', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 50 });
    const siteId = await newSite(ws, 'Leftover', 6);
    // Gemini refuses one prompt outright (400 is not retried): that call's unit goes back.
    await script(app, { provider: 'gemini', match: 'Leftover tool suits team 2', fail: { status: 400, times: 100 } });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'gemini', 'perplexity'] },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', stopReason: null, answersDone: 17, answersFailed: 1 });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(6 * (price('openai') + price('perplexity')) + 5 * price('gemini'));
    expect(money).toMatchObject({ scanReserved: 0, orgReserved: 0 });
    const spend = await app.ctx.db
      .selectFrom('siteSpend')
      .select(['spentMicros', 'reservedMicros'])
      .where('siteId', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(spend).toEqual({ spentMicros: money.charged, reservedMicros: 0 });
  });
});

describe('two scans sharing a workspace balance', () => {
  // Jobs are queued and never picked up: the test runs both scans itself, at the same time, after
  // both starts passed the balance check (a worker could otherwise spend before the second start).
  let idle: TestApp;
  beforeAll(async () => {
    idle = await startTestApp({ simulator: true, env: { ASSISTANT_CONCURRENCY: '4' } });
  });
  afterAll(() => idle.close());

  it('never take it below zero: they stop with balance once it is spent', async () => {
    const perAnswer = price('openai') + price('anthropic');
    // Each scan's estimate (10 prompts) is covered, both together are not: 15 prompts' worth in all.
    const ws = await seedOrg(idle.ctx, { balanceUsd: (15 * perAnswer) / 1e6 });
    const sites: number[] = [];
    for (const name of ['Left', 'Right']) {
      const res = await idle.request('POST', `/orgs/${ws.orgId}/projects`, {
        key: ws.keys.admin,
        body: { name, url: `${name.toLowerCase()}.com` },
      });
      await addActivePrompts(
        idle.ctx,
        res.body.project.id,
        Array.from({ length: 10 }, (_, i) => `Which ${name} tool suits team ${i}?`),
      );
      sites.push(res.body.project.id);
    }
    const body = { providers: ['openai', 'anthropic'], budgetUsd: (10 * perAnswer) / 1e6 };
    const starts = [];
    for (const siteId of sites)
      starts.push(await idle.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body }));
    expect(starts.map((s) => s.status)).toEqual([200, 200]);
    const scanIds: number[] = starts.map((s) => s.body.scan.id);
    await Promise.all(scanIds.map((id) => runScan(idle.ctx, id)));

    const scans = await idle.ctx.db
      .selectFrom('scans')
      .select(['id', 'status', 'stopReason', 'answersDone'])
      .where('id', 'in', scanIds)
      .execute();
    expect(scans.every((s) => s.status === 'done')).toBe(true);
    expect(scans.map((s) => s.stopReason)).toContain('balance');
    const org = await idle.ctx.db
      .selectFrom('orgs')
      .select(['balanceMicros', 'reservedMicros'])
      .where('id', '=', ws.orgId)
      .executeTakeFirstOrThrow();
    expect(org.reservedMicros).toBe(0);
    expect(org.balanceMicros).toBeGreaterThanOrEqual(0);
    // Money is conserved: what is left is the top-up minus every charge. (Some may be left over: a scan
    // stops at its first refused reservation, and units its other lane had reserved go back unused.)
    let charged = 0;
    for (const id of scanIds) {
      const money = await moneyFacts(idle.ctx, ws.orgId, id);
      expect(money.charged).toBe(money.answersCost);
      expect(money.scanReserved).toBe(0);
      expect(money.balance).toBe(money.ledgerBalance);
      charged += money.charged;
    }
    expect(org.balanceMicros + charged).toBe(15 * perAnswer);
    // Bound the money, not the count: with two prices the answers bought can be more than 30 cheap ones.
    expect(charged).toBeLessThanOrEqual(15 * perAnswer);
    // At most what the two other lanes held: a block of eight and half a block reserved ahead, each, but never more
    // units than a lane has prompts (10).
    expect(org.balanceMicros).toBeLessThanOrEqual(2 * 10 * Math.max(price('openai'), price('anthropic')));
  });
});

describe('money after every scan of this file', () => {
  it('holds every invariant of sightline money check', async () => {
    // Scans still finishing in workers settle first.
    await expect.poll(async () => (await checkMoney(app.ctx)).problems, { timeout: 15_000, interval: 200 }).toEqual([]);
  });
});
