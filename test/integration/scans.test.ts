import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMoney } from '../../src/domain/scans/money-check.ts';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

let app: TestApp;
let ws: Org;

async function newSite(name: string, promptCount = 3): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com`, competitors: [{ name: 'Globex' }] },
  });
  await addActivePrompts(
    app.ctx,
    res.body.project.id,
    Array.from({ length: promptCount }, (_, i) => `Which ${name} alternative is best for team ${i}?`),
  );
  return res.body.project.id;
}

const price = (provider: Parameters<typeof defaultModel>[0]) => defaultModel(provider).priceMicros;

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true });
  ws = await seedOrg(app.ctx, { balanceUsd: 50 });
});
afterAll(() => app.close());

describe('scan lifecycle', () => {
  it('estimates, starts, stores every answer with facts, and charges exactly', async () => {
    const siteId = await newSite('Lifecycle', 3);
    const estimate = await app.request('POST', `/projects/${siteId}/scans/estimate`, {
      key: ws.keys.viewer,
      body: { providers: ['openai', 'perplexity'] },
    });
    expect(estimate.status).toBe(200);
    const expected = 3 * (price('openai') + price('perplexity'));
    expect(estimate.body).toMatchObject({ prompts: 3, answers: 6, cost: expected / 1e6 });
    expect(estimate.body.formatted).toMatch(/^\$/);

    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'perplexity'], label: 'First' },
    });
    expect(start.status).toBe(200);
    expect(start.body.scan).toMatchObject({
      status: 'queued',
      label: 'First',
      trigger: 'manual',
      answersTotal: 6,
      budgetUsd: (2 * expected) / 1e6,
    });

    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({
      status: 'done',
      answersDone: 6,
      answersFailed: 0,
      stopReason: null,
      costUsd: expected / 1e6,
    });
    expect(done.answers).toHaveLength(6);
    expect(done.answers[0]).toMatchObject({
      provider: expect.any(String),
      text: expect.any(String),
      verdict: expect.any(String),
      citations: expect.any(Array),
    });

    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money).toMatchObject({
      charged: expected,
      charges: 6,
      answersCost: expected,
      scanSpent: expected,
      scanReserved: 0,
      orgReserved: 0,
    });
    expect(money.balance).toBe(money.ledgerBalance);

    const usage = await app.request('GET', `/orgs/${ws.orgId}/usage`, { key: ws.keys.viewer });
    expect(usage.body.costs.sites.find((s: { siteId: number }) => s.siteId === siteId).spendThisMonthUsd).toBe(
      expected / 1e6,
    );

    const list = await app.request('GET', `/projects/${siteId}/scans`, { key: ws.keys.viewer });
    expect(list.body.scans[0]).toMatchObject({ id: start.body.scan.id, status: 'done' });
    expect((await app.request('GET', `/projects/${siteId}/scans/live`, { key: ws.keys.viewer })).body).toEqual({
      run: null,
    });
  });

  it('filters scan detail by tab and engine and pages by 25', async () => {
    const siteId = await newSite('Detail', 30);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'gemini'] },
    });
    await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    const page1 = await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}`, { key: ws.keys.viewer });
    expect(page1.body).toMatchObject({ total: 60, page: 1, perPage: 25 });
    expect(page1.body.answers).toHaveLength(25);
    const page3 = await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}?page=3`, {
      key: ws.keys.viewer,
    });
    expect(page3.body.answers).toHaveLength(10);
    const gemini = await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}?engine=gemini`, {
      key: ws.keys.viewer,
    });
    expect(gemini.body.total).toBe(30);
    expect(gemini.body.answers.every((a: { provider: string }) => a.provider === 'gemini')).toBe(true);
    const notNamed = await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}?tab=notNamed`, {
      key: ws.keys.viewer,
    });
    expect(notNamed.body.answers.every((a: { verdict: string }) => ['lost', 'missing'].includes(a.verdict))).toBe(true);
    expect(
      (
        await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}?tab=bogus&page=0`, {
          key: ws.keys.viewer,
        })
      ).status,
    ).toBe(422);
  });

  it('stores failed answers uncharged after retries, and charges the rest', async () => {
    const siteId = await newSite('Failing', 2);
    await script(app, {
      provider: 'perplexity',
      match: 'Failing alternative is best for team 0',
      fail: { status: 500, times: 10 },
    });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['perplexity'] },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 1, answersFailed: 1 });
    const errors = await app.request('GET', `/projects/${siteId}/scans/${start.body.scan.id}?tab=errors`, {
      key: ws.keys.viewer,
    });
    expect(errors.body.answers).toHaveLength(1);
    expect(errors.body.answers[0]).toMatchObject({ verdict: 'failed', costUsd: 0, error: expect.any(String) });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money).toMatchObject({ charged: price('perplexity'), charges: 1, scanReserved: 0 });
  });
});

describe('refusals', () => {
  it('answers 400 when there are no active prompts', async () => {
    const siteId = await newSite('Empty', 0);
    const res = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: {} });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/no active prompts/);
  });

  it('answers 402 when the balance does not cover the estimate (variant A or both)', async () => {
    const poor = await seedOrg(app.ctx, { balanceUsd: 0.01 });
    const site = await app.request('POST', `/orgs/${poor.orgId}/projects`, {
      key: poor.keys.admin,
      body: { name: 'Poor', url: 'poor.com' },
    });
    await addActivePrompts(app.ctx, site.body.project.id, ['Which poor tool is best?', 'Which cheap tool is best?']);
    const res = await app.request('POST', `/projects/${site.body.project.id}/scans`, {
      key: poor.keys.admin,
      body: {},
    });
    expect(res.status).toBe(402);
    expect(res.body.error).toMatch(/balance/);
  });

  it('answers 400 when the monthly cap is spent, unless skipAtCap is false', async () => {
    const siteId = await newSite('Capped', 1);
    const first = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    await waitForScan(app, ws.keys.viewer, siteId, first.body.scan.id);
    await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { monthlyCapUsd: price('openai') / 1e6 },
    });
    const refused = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/monthly cap/);
    await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { skipAtCap: false } },
    });
    const allowed = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'] },
    });
    expect(allowed.status).toBe(200);
    const done = await waitForScan(app, ws.keys.viewer, siteId, allowed.body.scan.id);
    // The cap still holds inside the scan: nothing more may be spent this month.
    expect(done.scan).toMatchObject({ status: 'done', stopReason: 'cap', answersDone: 0 });
  });

  it('answers 400 past the scans-per-month limit', async () => {
    const small = await seedOrg(app.ctx, { plan: 'free', balanceUsd: 5 });
    const { setOrgLimits } = await import('../../src/domain/orgs/orgs.ts');
    await setOrgLimits(app.ctx, small.orgId, { scansPerMonth: 1 });
    const site = await app.request('POST', `/orgs/${small.orgId}/projects`, {
      key: small.keys.admin,
      body: { name: 'Lim', url: 'lim.com' },
    });
    await addActivePrompts(app.ctx, site.body.project.id, ['Which limited tool is best?']);
    const first = await app.request('POST', `/projects/${site.body.project.id}/scans`, {
      key: small.keys.admin,
      body: { providers: ['openai'] },
    });
    await waitForScan(app, small.keys.viewer, site.body.project.id, first.body.scan.id);
    const second = await app.request('POST', `/projects/${site.body.project.id}/scans`, {
      key: small.keys.admin,
      body: { providers: ['openai'] },
    });
    expect(second.status).toBe(400);
    expect(second.body.error).toMatch(/limit of 1 scans/);
  });

  it('respects allowedProviders', async () => {
    const siteId = await newSite('Allowed', 1);
    await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { allowedProviders: ['perplexity'] },
    });
    const refused = await app.request('POST', `/projects/${siteId}/scans/estimate`, {
      key: ws.keys.viewer,
      body: { providers: ['openai'] },
    });
    expect(refused.status).toBe(400);
    const implicit = await app.request('POST', `/projects/${siteId}/scans/estimate`, { key: ws.keys.viewer, body: {} });
    expect(implicit.body.providers.map((p: { provider: string }) => p.provider)).toEqual(['perplexity']);
  });

  it('lets exactly one of many concurrent starts win', async () => {
    const siteId = await newSite('Race', 2);
    await script(app, { provider: null, match: 'Race alternative', latencyMs: 300 });
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body: { providers: ['openai'] } }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).every((r) => /Another scan/.test(r.body.error))).toBe(true);
    const winner = results.find((r) => r.status === 200);
    await waitForScan(app, ws.keys.viewer, siteId, winner?.body.scan.id);
  });
});

describe('replies Postgres cannot store as sent', () => {
  it('stores answers holding NUL characters or lone surrogates (as U+FFFD) along with the rest of their batch', async () => {
    const siteId = await newSite('Nul', 2);
    await script(app, {
      provider: 'perplexity',
      match: 'Nul alternative is best for team 0',
      text: 'Nul\u0000 is fine; Globex\u0000 too.',
      searches: ['nul\u0000 search'],
    });
    // JSON may escape half a surrogate pair ("\ud83d" alone); JavaScript keeps it, Postgres' text and jsonb refuse it.
    await script(app, {
      provider: 'perplexity',
      match: 'Nul alternative is best for team 1',
      text: 'Lone\ud83d is fine; Globex\udc00 too.',
    });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['perplexity'] },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', answersDone: 2, answersFailed: 0 });
    const stored = await app.ctx.db
      .selectFrom('answers')
      .select(['text', 'raw'])
      .where('scanId', '=', start.body.scan.id)
      .orderBy('text')
      .execute();
    expect(stored.map((a) => a.text)).toEqual([
      expect.stringMatching(/^Lone\uFFFD is fine; Globex\uFFFD too\./),
      expect.stringMatching(/^Nul\uFFFD is fine; Globex\uFFFD too\./),
    ]);
    expect(JSON.stringify(stored[0]?.raw)).toContain('Lone\uFFFD is fine');
  });
});

describe('budget and cancel', () => {
  it('stops at the budget with stopReason budget and never spends past it', async () => {
    const siteId = await newSite('Budget', 10);
    const budget = 3 * price('openai');
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai'], budgetUsd: budget / 1e6 },
    });
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'done', stopReason: 'budget', answersDone: 3, costUsd: budget / 1e6 });
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(budget);
    expect(money.scanReserved).toBe(0);
  });

  it('cancels a running scan between answers, charging only what was stored', async () => {
    const siteId = await newSite('Cancel', 40);
    await script(app, { provider: null, match: 'Cancel alternative', latencyMs: 150 });
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['anthropic'] },
    });
    await expect
      .poll(
        async () =>
          (await app.request('GET', `/projects/${siteId}/scans/live`, { key: ws.keys.viewer })).body.run?.answersDone ??
          0,
        { timeout: 10_000 },
      )
      .toBeGreaterThan(0);
    const live = await app.request('GET', `/projects/${siteId}/scans/live`, { key: ws.keys.viewer });
    expect(live.body.run).toMatchObject({
      id: start.body.scan.id,
      status: 'running',
      pacePerMinute: expect.any(Number),
    });
    const cancel = await app.request('POST', `/projects/${siteId}/scans/${start.body.scan.id}/cancel`, {
      key: ws.keys.admin,
    });
    expect(cancel.status).toBe(200);
    expect(cancel.body.scan.status).toBe('cancelling');
    const done = await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    expect(done.scan).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(done.scan.answersDone).toBeLessThan(40);
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);
    expect(money.charged).toBe(money.answersCost);
    expect(money.scanReserved).toBe(0);
    const again = await app.request('POST', `/projects/${siteId}/scans/${start.body.scan.id}/cancel`, {
      key: ws.keys.admin,
    });
    expect(again.status).toBe(400);
  });
});

describe('money after every scan of this file', () => {
  it('holds every invariant of sightline money check', async () => {
    // Scans still finishing in workers settle first.
    await expect.poll(async () => (await checkMoney(app.ctx)).problems, { timeout: 15_000, interval: 200 }).toEqual([]);
  });
});
