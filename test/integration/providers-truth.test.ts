import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { findModel, providerEntry } from '../../src/assistants/catalog.ts';
import { microsToUsd } from '../../src/money.ts';
import { addActivePrompts, moneyFacts } from '../helpers/scans.ts';

/**
 * CONTRACT.md "Configuration": ASSISTANTS decides who answers, and a
 * customer always sees which answers the simulator gave. The live
 * deployment here has one credential (OpenAI, whose base URL is a simulator
 * standing in for the real service, so nothing leaves the machine).
 */
let sim: Simulator;
let live: TestApp;
let simulated: TestApp;
let auto: TestApp;
let liveWs: Org;
let simWs: Org;
let autoWs: Org;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  live = await startTestApp({
    env: { ASSISTANTS: 'live', OPENAI_API_KEY: 'sk-test-not-real', OPENAI_BASE_URL: `${sim.url}/openai/v1` },
  });
  simulated = await startTestApp({ simulator: true });
  // The default mode on a deployment that forgot NODE_ENV=production: one credential (OpenAI, at a stand-in), the simulator for the rest.
  auto = await startTestApp({
    simulator: true,
    env: { ASSISTANTS: 'auto', OPENAI_API_KEY: 'sk-test-not-real', OPENAI_BASE_URL: `${sim.url}/openai/v1` },
  });
  liveWs = await seedOrg(live.ctx, { balanceUsd: 10 });
  simWs = await seedOrg(simulated.ctx, { balanceUsd: 10 });
  autoWs = await seedOrg(auto.ctx, { balanceUsd: 10 });
});
afterAll(async () => {
  await live?.close();
  await simulated?.close();
  await auto?.close();
  await sim?.close();
});

async function site(app: TestApp, ws: Org, name: string): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  await addActivePrompts(app.ctx, res.body.project.id, [`Which ${name} tool is best?`, `Is ${name} worth it?`]);
  return res.body.project.id;
}

describe('ASSISTANTS=live', () => {
  it('connects only assistants with a credential, and says so', async () => {
    const res = await live.request('GET', `/orgs/${liveWs.orgId}/providers`, { key: liveWs.keys.viewer });
    const byKey = Object.fromEntries(res.body.providers.map((p: { key: string }) => [p.key, p]));
    expect(byKey.openai).toMatchObject({ connected: true, source: 'api', simulated: false });
    expect(byKey.anthropic).toMatchObject({ connected: false, source: null, simulated: false });
    const org = await live.request('GET', `/orgs/${liveWs.orgId}/dashboard`, { key: liveWs.keys.viewer });
    expect(JSON.stringify(org.body)).toContain('"connectedAssistants":["openai"]');
  });

  it('answers 400 for a scan naming an assistant without a credential, and asks only connected ones by default', async () => {
    const siteId = await site(live, liveWs, 'Livewire');
    const options = await live.request('GET', `/projects/${siteId}/scan-options`, { key: liveWs.keys.viewer });
    expect(options.body.providers.find((p: { key: string }) => p.key === 'perplexity')).toMatchObject({
      connected: false,
    });
    const refused = await live.request('POST', `/projects/${siteId}/scans`, {
      key: liveWs.keys.admin,
      body: { providers: ['openai', 'perplexity'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/perplexity is not connected/);
    const started = await live.request('POST', `/projects/${siteId}/scans`, { key: liveWs.keys.admin, body: {} });
    expect(started.status).toBe(200);
    expect(started.body.scan).toMatchObject({ providers: ['openai'], simulated: false, simulatedProviders: [] });
    await runScan(live.ctx, started.body.scan.id);
    const detail = await live.request('GET', `/projects/${siteId}/scans/${started.body.scan.id}`, {
      key: liveWs.keys.viewer,
    });
    expect(detail.body.answers).toHaveLength(2);
    expect(detail.body.answers.every((a: { simulated: boolean }) => a.simulated === false)).toBe(true);
  });
});

describe('ASSISTANTS=simulator', () => {
  it('marks the providers, the scan and every answer as simulated', async () => {
    const providers = await simulated.request('GET', `/orgs/${simWs.orgId}/providers`, { key: simWs.keys.viewer });
    expect(
      providers.body.providers.every((p: { connected: boolean; simulated: boolean }) => p.connected && p.simulated),
    ).toBe(true);
    const siteId = await site(simulated, simWs, 'Simtown');
    const estimate = await simulated.request('POST', `/projects/${siteId}/scans/estimate`, {
      key: simWs.keys.viewer,
      body: { providers: ['anthropic'] },
    });
    expect(estimate.body.providers[0]).toMatchObject({ provider: 'anthropic', simulated: true });
    const started = await simulated.request('POST', `/projects/${siteId}/scans`, {
      key: simWs.keys.admin,
      body: { providers: ['anthropic'] },
    });
    expect(started.body.scan).toMatchObject({ simulated: true, simulatedProviders: ['anthropic'] });
    await runScan(simulated.ctx, started.body.scan.id);
    const detail = await simulated.request('GET', `/projects/${siteId}/scans/${started.body.scan.id}`, {
      key: simWs.keys.viewer,
    });
    expect(detail.body.answers.map((a: { simulated: boolean }) => a.simulated)).toEqual([true, true]);
    // Set on purpose (the demo, tests): simulated answers keep the catalog price, as today.
    const price = providerEntry('anthropic').models.find((m) => m.id === providerEntry('anthropic').defaultModel)
      ?.priceMicros as number;
    expect(estimate.body.providers[0].costPerAnswerUsd).toBe(microsToUsd(price));
    expect(await moneyFacts(simulated.ctx, simWs.orgId, started.body.scan.id)).toMatchObject({
      charges: 2,
      charged: 2 * price,
    });
  });
});

describe('ASSISTANTS=auto with a credential missing', () => {
  const anthropicPrice = () =>
    (findModel('anthropic', providerEntry('anthropic').defaultModel)?.priceMicros ?? 0) as number;
  const openaiPrice = () => (findModel('openai', providerEntry('openai').defaultModel)?.priceMicros ?? 0) as number;

  it('prices the simulated assistants at 0 wherever a price is shown: providers, scan options, usage, estimate', async () => {
    const providers = await auto.request('GET', `/orgs/${autoWs.orgId}/providers`, { key: autoWs.keys.viewer });
    const byKey = Object.fromEntries(providers.body.providers.map((p: { key: string }) => [p.key, p]));
    expect(byKey.openai).toMatchObject({ source: 'api', simulated: false });
    expect(
      byKey.openai.models.find((m: { id: string }) => m.id === providerEntry('openai').defaultModel).costPerAnswerUsd,
    ).toBe(microsToUsd(openaiPrice()));
    // OpenAI's app models go through the app gateway, which has no credential here: simulated, so free.
    expect(byKey.openai.models.find((m: { kind: string }) => m.kind === 'app').costPerAnswerUsd).toBe(0);
    for (const key of ['anthropic', 'perplexity', 'gemini', 'google-ai-overview', 'google-ai-mode']) {
      expect(byKey[key], key).toMatchObject({ connected: true, source: 'simulator', simulated: true });
      for (const m of byKey[key].models) {
        expect(m.costPerAnswerUsd, `${key} ${m.id}`).toBe(0);
        expect([0, null], `${key} ${m.id}`).toContain(m.batchCostPerAnswerUsd);
      }
    }
    const siteId = await site(auto, autoWs, 'Autoville');
    const options = await auto.request('GET', `/projects/${siteId}/scan-options`, { key: autoWs.keys.viewer });
    expect(
      options.body.providers
        .find((p: { key: string }) => p.key === 'anthropic')
        .models.every((m: { costPerAnswerUsd: number }) => m.costPerAnswerUsd === 0),
    ).toBe(true);
    const usage = await auto.request('GET', `/orgs/${autoWs.orgId}/usage`, { key: autoWs.keys.viewer });
    const prices = Object.fromEntries(
      usage.body.costs.pricePerAnswer.map((p: { provider: string; priceUsd: number }) => [p.provider, p.priceUsd]),
    );
    expect(prices).toMatchObject({ openai: microsToUsd(openaiPrice()), anthropic: 0, gemini: 0 });
    const estimate = await auto.request('POST', `/projects/${siteId}/scans/estimate`, {
      key: autoWs.keys.viewer,
      body: { providers: ['openai', 'anthropic'] },
    });
    expect(estimate.body.providers).toEqual([
      expect.objectContaining({
        provider: 'openai',
        simulated: false,
        costPerAnswerUsd: microsToUsd(openaiPrice()),
        costUsd: microsToUsd(2 * openaiPrice()),
      }),
      expect.objectContaining({ provider: 'anthropic', simulated: true, costPerAnswerUsd: 0, costUsd: 0 }),
    ]);
    expect(estimate.body.cost).toBe(microsToUsd(2 * openaiPrice()));
    expect(anthropicPrice()).toBeGreaterThan(0);
  });

  it('charges nothing for simulated answers (no reservation, no ledger entry, balance unchanged) and the real price for live ones', async () => {
    const siteId = await site(auto, autoWs, 'Autotown');
    const before = (
      await auto.ctx.db
        .selectFrom('orgs')
        .select('balanceMicros')
        .where('id', '=', autoWs.orgId)
        .executeTakeFirstOrThrow()
    ).balanceMicros;
    const free = await auto.request('POST', `/projects/${siteId}/scans`, {
      key: autoWs.keys.admin,
      body: { providers: ['anthropic'] },
    });
    expect(free.status).toBe(200);
    expect(free.body.estimate.cost).toBe(0);
    await runScan(auto.ctx, free.body.scan.id);
    const detail = await auto.request('GET', `/projects/${siteId}/scans/${free.body.scan.id}`, {
      key: autoWs.keys.viewer,
    });
    expect(detail.body.scan).toMatchObject({ status: 'done', simulated: true });
    expect(detail.body.answers.map((a: { simulated: boolean }) => a.simulated)).toEqual([true, true]);
    expect(await moneyFacts(auto.ctx, autoWs.orgId, free.body.scan.id)).toMatchObject({
      charges: 0,
      answersCost: 0,
      scanSpent: 0,
      scanReserved: 0,
      orgReserved: 0,
      balance: before,
    });

    const paid = await auto.request('POST', `/projects/${siteId}/scans`, {
      key: autoWs.keys.admin,
      body: { providers: ['openai'] },
    });
    await runScan(auto.ctx, paid.body.scan.id);
    expect(await moneyFacts(auto.ctx, autoWs.orgId, paid.body.scan.id)).toMatchObject({
      charges: 2,
      charged: 2 * openaiPrice(),
      balance: before - 2 * openaiPrice(),
    });
  });
});

describe('the default mode', () => {
  it('is auto, and live when NODE_ENV is production', () => {
    expect(loadConfig({}).assistants.mode).toBe('auto');
    expect(loadConfig({ NODE_ENV: 'production' }).assistants.mode).toBe('live');
    expect(loadConfig({ NODE_ENV: 'production', ASSISTANTS: 'simulator' }).assistants.mode).toBe('simulator');
  });
});
