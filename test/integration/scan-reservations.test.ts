import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { reserveUnits } from '../../src/domain/scan-money.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

/**
 * Block reservations (reserve_scan_units and the lanes' purses): a lane
 * reserves several calls at once, yet a scan makes exactly the calls its
 * budget, the site's cap and the workspace's balance allow, and gives back
 * whatever it reserved and did not use.
 */

let app: TestApp;

const price = (provider: Parameters<typeof defaultModel>[0]) => defaultModel(provider).priceMicros;

async function newSite(ws: Workspace, name: string, promptCount: number): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: { name, url: `${name.toLowerCase()}.com` } });
  await addActivePrompts(app.ctx, res.body.project.id, Array.from({ length: promptCount }, (_, i) => `Which ${name} tool suits team ${i}?`));
  return res.body.project.id;
}

async function orgMoney(orgId: number) {
  return app.ctx.db.selectFrom('orgs').select(['balanceMicros', 'reservedMicros']).where('id', '=', orgId).executeTakeFirstOrThrow();
}

beforeAll(async () => {
  // Four calls in flight per provider: blocks of four, refilled at two.
  app = await startTestApp({ workers: { concurrency: 4 }, simulator: true, env: { ASSISTANT_CONCURRENCY: '4' } });
});
afterAll(() => app.close());

describe('reserve_scan_units', () => {
  it('grants as many units as fit, says which limit stopped the rest, and grants nothing once full', async () => {
    const ws = await seedWorkspace(app.ctx, { balanceUsd: 5 });
    const siteId = await newSite(ws, 'Units', 3);
    const start = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: { providers: ['openai'] } });
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
    const held = await app.ctx.db.selectFrom('scans').select('reservedMicros').where('id', '=', scan.id).executeTakeFirstOrThrow();
    expect(held.reservedMicros).toBe(7_000);

    // The site's cap binds before the budget when it is lower.
    await app.ctx.db.updateTable('scans').set({ reservedMicros: 0, budgetMicros: 1_000_000 }).where('id', '=', scan.id).execute();
    await app.ctx.db.updateTable('orgs').set((eb) => ({ reservedMicros: eb('reservedMicros', '-', 7_000) })).where('id', '=', ws.orgId).execute();
    const spend = await app.ctx.db.selectFrom('siteSpend').select(['spentMicros', 'reservedMicros']).where('siteId', '=', siteId).executeTakeFirstOrThrow();
    await app.ctx.db.updateTable('siteSpend').set({ reservedMicros: 0 }).where('siteId', '=', siteId).execute();
    await app.ctx.db.updateTable('sites').set({ monthlyCapMicros: spend.spentMicros + 3_500 }).where('id', '=', siteId).execute();
    expect(await reserveUnits(app.ctx, ref, 1_000, 5)).toEqual({ granted: 3, limitedBy: 'cap' });
  });
});

describe('scans reserving by the block', () => {
  it('stop at a budget that ends inside a block, with every unused unit given back', async () => {
    const ws = await seedWorkspace(app.ctx, { balanceUsd: 50 });
    const siteId = await newSite(ws, 'Blocks', 20);
    const budget = 9 * price('anthropic');
    const start = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: { providers: ['anthropic'], budgetUsd: budget / 1e6 } });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', stopReason: 'budget', answersDone: 9, costUsd: budget / 1e6 });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money).toMatchObject({ charged: budget, charges: 9, answered: 9, scanReserved: 0, orgReserved: 0, scanSpent: budget });
    expect(money.balance).toBe(money.ledgerBalance);
  });

  it('give back the units of calls that failed and of a lane that ran out of prompts', async () => {
    const ws = await seedWorkspace(app.ctx, { balanceUsd: 50 });
    const siteId = await newSite(ws, 'Leftover', 6);
    // Gemini refuses one prompt outright (400 is not retried): that call's unit goes back.
    await script(app, { provider: 'gemini', match: 'Leftover tool suits team 2', fail: { status: 400, times: 100 } });
    const start = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: { providers: ['openai', 'gemini', 'perplexity'] } });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', stopReason: null, answersDone: 17, answersFailed: 1 });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(6 * (price('openai') + price('perplexity')) + 5 * price('gemini'));
    expect(money).toMatchObject({ scanReserved: 0, orgReserved: 0 });
    const spend = await app.ctx.db.selectFrom('siteSpend').select(['spentMicros', 'reservedMicros']).where('siteId', '=', siteId).executeTakeFirstOrThrow();
    expect(spend).toEqual({ spentMicros: money.charged, reservedMicros: 0 });
  });

  it('two sites scanning at once never take the workspace balance below zero', async () => {
    const perAnswer = price('openai') + price('anthropic');
    // Each scan's estimate (10 prompts) is covered, both together are not: 15 prompts' worth in all.
    const ws = await seedWorkspace(app.ctx, { balanceUsd: (15 * perAnswer) / 1e6 });
    const a = await newSite(ws, 'Left', 10);
    const b = await newSite(ws, 'Right', 10);
    const body = { providers: ['openai', 'anthropic'], budgetUsd: (10 * perAnswer) / 1e6 };
    const [sa, sb] = await Promise.all([
      app.request('POST', `/projects/${a}/scans`, { key: ws.keys.admin, body }),
      app.request('POST', `/projects/${b}/scans`, { key: ws.keys.admin, body }),
    ]);
    expect([sa.status, sb.status]).toEqual([200, 200]);
    const [da, db] = await Promise.all([waitForScan(app, ws.keys.viewer, a, sa.body.scan.id), waitForScan(app, ws.keys.viewer, b, sb.body.scan.id)]);
    expect([da.scan.stopReason, db.scan.stopReason]).toContain('balance');
    const org = await orgMoney(ws.orgId);
    expect(org.reservedMicros).toBe(0);
    expect(org.balanceMicros).toBeGreaterThanOrEqual(0);
    // Whatever is left cannot pay for another answer of either provider at the price that stopped it.
    expect(org.balanceMicros).toBeLessThan(Math.max(price('openai'), price('anthropic')));
    for (const [scan, siteId] of [
      [sa.body.scan.id, a],
      [sb.body.scan.id, b],
    ] as const) {
      const money = await moneyFacts(app.ctx, ws.orgId, scan);
      expect(money.charged, `site ${siteId}`).toBe(money.answersCost);
      expect(money.scanReserved).toBe(0);
    }
    const ledger = await moneyFacts(app.ctx, ws.orgId, sa.body.scan.id);
    expect(ledger.balance).toBe(ledger.ledgerBalance);
  });
});
