import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { runScan } from '../../src/domain/scans/run.ts';
import { startSimulator, type Simulator } from '../../src/simulator/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';

/**
 * CONTRACT.md "Configuration": ASSISTANTS decides who answers, and a
 * customer always sees which answers the simulator gave. The live
 * deployment here has one credential (OpenAI, whose base URL is a simulator
 * standing in for the real service, so nothing leaves the machine).
 */
let sim: Simulator;
let live: TestApp;
let simulated: TestApp;
let liveWs: Workspace;
let simWs: Workspace;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, host: '127.0.0.1' });
  live = await startTestApp({ env: { ASSISTANTS: 'live', OPENAI_API_KEY: 'sk-test-not-real', OPENAI_BASE_URL: `${sim.url}/openai/v1` } });
  simulated = await startTestApp({ simulator: true });
  liveWs = await seedWorkspace(live.ctx, { balanceUsd: 10 });
  simWs = await seedWorkspace(simulated.ctx, { balanceUsd: 10 });
});
afterAll(async () => {
  await live?.close();
  await simulated?.close();
  await sim?.close();
});

async function site(app: TestApp, ws: Workspace, name: string): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: { name, url: `${name.toLowerCase()}.com` } });
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
    expect(options.body.providers.find((p: { key: string }) => p.key === 'perplexity')).toMatchObject({ connected: false });
    const refused = await live.request('POST', `/projects/${siteId}/scans`, { key: liveWs.keys.admin, body: { providers: ['openai', 'perplexity'] } });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/perplexity is not connected/);
    const started = await live.request('POST', `/projects/${siteId}/scans`, { key: liveWs.keys.admin, body: {} });
    expect(started.status).toBe(200);
    expect(started.body.scan).toMatchObject({ providers: ['openai'], simulated: false, simulatedProviders: [] });
    await runScan(live.ctx, started.body.scan.id);
    const detail = await live.request('GET', `/projects/${siteId}/scans/${started.body.scan.id}`, { key: liveWs.keys.viewer });
    expect(detail.body.answers).toHaveLength(2);
    expect(detail.body.answers.every((a: { simulated: boolean }) => a.simulated === false)).toBe(true);
  });
});

describe('ASSISTANTS=simulator', () => {
  it('marks the providers, the scan and every answer as simulated', async () => {
    const providers = await simulated.request('GET', `/orgs/${simWs.orgId}/providers`, { key: simWs.keys.viewer });
    expect(providers.body.providers.every((p: { connected: boolean; simulated: boolean }) => p.connected && p.simulated)).toBe(true);
    const siteId = await site(simulated, simWs, 'Simtown');
    const estimate = await simulated.request('POST', `/projects/${siteId}/scans/estimate`, { key: simWs.keys.viewer, body: { providers: ['anthropic'] } });
    expect(estimate.body.providers[0]).toMatchObject({ provider: 'anthropic', simulated: true });
    const started = await simulated.request('POST', `/projects/${siteId}/scans`, { key: simWs.keys.admin, body: { providers: ['anthropic'] } });
    expect(started.body.scan).toMatchObject({ simulated: true, simulatedProviders: ['anthropic'] });
    await runScan(simulated.ctx, started.body.scan.id);
    const detail = await simulated.request('GET', `/projects/${siteId}/scans/${started.body.scan.id}`, { key: simWs.keys.viewer });
    expect(detail.body.answers.map((a: { simulated: boolean }) => a.simulated)).toEqual([true, true]);
  });
});

describe('the default mode', () => {
  it('is auto, and live when NODE_ENV is production', () => {
    expect(loadConfig({}).assistants.mode).toBe('auto');
    expect(loadConfig({ NODE_ENV: 'production' }).assistants.mode).toBe('live');
    expect(loadConfig({ NODE_ENV: 'production', ASSISTANTS: 'simulator' }).assistants.mode).toBe('simulator');
  });
});
