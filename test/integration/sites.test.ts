import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

const clock = fixedClock('2026-11-22T15:30:00Z');
let app: TestApp;
let ws: Org;
let siteId: number;

beforeAll(async () => {
  app = await startTestApp({ clock, workers: true });
  ws = await seedOrg(app.ctx);
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com', competitors: [{ name: 'Globex' }] },
  });
  siteId = res.body.project.id;
});
afterAll(() => app.close());

describe('GET /projects/:id', () => {
  it('answers the site with the caller role and stored answers count', async () => {
    const res = await app.request('GET', `/projects/${siteId}`, { key: ws.keys.viewer });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({
      id: siteId,
      name: 'Acme',
      domain: 'acme.com',
      role: 'viewer',
      answersCount: 0,
      competitors: [{ name: 'Globex' }],
    });
  });
});

describe('PATCH /projects/:id', () => {
  it('lets a member change names and places; a name change carries a reanalysis summary', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { name: 'Acme Inc', language: 'German', location: 'Germany', scanFrequencyDays: 14 },
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({
      name: 'Acme Inc',
      language: 'German',
      location: 'Germany',
      scanFrequencyDays: 14,
    });
    expect(res.body.reanalysis).toMatchObject({ state: 'done', answers: 0, verdictsChanged: 0 });
  });

  it('carries no reanalysis when names did not change', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { industry: 'Anvils' },
    });
    expect(res.body.reanalysis).toBeNull();
  });

  it.each([
    ['monthlyCapUsd', 50],
    ['scanSettings', {}],
    ['allowedProviders', ['openai']],
  ])('refuses %s to a member (403) and takes it from an admin', async (field, value) => {
    const refused = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { [field]: value },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(field);
    const ok = await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { [field]: value } });
    expect(ok.status).toBe(200);
  });

  it('sets and removes the monthly cap (null or 0 removes)', async () => {
    expect(
      (await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { monthlyCapUsd: 12.5 } })).body
        .project.monthlyCapUsd,
    ).toBe(12.5);
    expect(
      (await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { monthlyCapUsd: 0 } })).body
        .project.monthlyCapUsd,
    ).toBeNull();
    await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { monthlyCapUsd: 3 } });
    expect(
      (await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { monthlyCapUsd: null } })).body
        .project.monthlyCapUsd,
    ).toBeNull();
  });

  it('replaces scan settings whole and validates providers, models and budget', async () => {
    const ok = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: {
        scanSettings: {
          providers: ['openai', 'gemini'],
          models: { openai: 'chatgpt-app', gemini: 'gemini-2.5-pro' },
          budgetUsd: 4,
          skipAtCap: false,
        },
      },
    });
    expect(ok.body.project.scanSettings).toEqual({
      providers: ['openai', 'gemini'],
      models: { openai: 'chatgpt-app', gemini: 'gemini-2.5-pro' },
      category: null,
      budgetUsd: 4,
      skipAtCap: false,
      samples: 1,
    });
    const replaced = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { skipAtCap: true } },
    });
    expect(replaced.body.project.scanSettings).toEqual({
      providers: null,
      models: {},
      category: null,
      budgetUsd: 0,
      skipAtCap: true,
      samples: 1,
    });
    const bad = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: {
        scanSettings: {
          providers: ['bing'],
          models: { openai: 'gpt-99', nope: 'x' },
          budgetUsd: -1,
          category: 'Unknown',
        },
      },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.fields).sort()).toEqual([
      'scanSettings.budgetUsd',
      'scanSettings.models.nope',
      'scanSettings.models.openai',
      'scanSettings.providers.0',
    ]);
  });

  it('refuses a category that the project does not have', async () => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.admin,
      body: { scanSettings: { category: 'Pricing' } },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ 'scanSettings.category': 'no such category in this project' });
  });

  it.each([0, 366, 1.5])('refuses scanFrequencyDays %s with 422', async (n) => {
    const res = await app.request('PATCH', `/projects/${siteId}`, {
      key: ws.keys.member,
      body: { scanFrequencyDays: n },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toHaveProperty('scanFrequencyDays');
  });

  it('validates allowedProviders and accepts null for all', async () => {
    expect(
      (
        await app.request('PATCH', `/projects/${siteId}`, {
          key: ws.keys.admin,
          body: { allowedProviders: ['openai', 'openai'] },
        })
      ).status,
    ).toBe(422);
    expect(
      (await app.request('PATCH', `/projects/${siteId}`, { key: ws.keys.admin, body: { allowedProviders: null } })).body
        .project.allowedProviders,
    ).toBeNull();
  });
});

describe('PATCH /projects/:id/schedule', () => {
  it('turning it on sets the next scan to the coming night UTC; off clears it', async () => {
    const on = await app.request('PATCH', `/projects/${siteId}/schedule`, {
      key: ws.keys.admin,
      body: { enabled: true },
    });
    expect(on.status).toBe(200);
    expect(on.body.project.schedule).toEqual({ enabled: true, batch: true, nextScanAt: '2026-11-23T00:00:00.000Z' });
    const batchOff = await app.request('PATCH', `/projects/${siteId}/schedule`, {
      key: ws.keys.admin,
      body: { enabled: true, batch: false },
    });
    expect(batchOff.body.project.schedule).toEqual({
      enabled: true,
      batch: false,
      nextScanAt: '2026-11-23T00:00:00.000Z',
    });
    const off = await app.request('PATCH', `/projects/${siteId}/schedule`, {
      key: ws.keys.admin,
      body: { enabled: false },
    });
    expect(off.body.project.schedule).toEqual({ enabled: false, batch: false, nextScanAt: null });
  });

  it('needs admin and a boolean', async () => {
    expect(
      (await app.request('PATCH', `/projects/${siteId}/schedule`, { key: ws.keys.member, body: { enabled: true } }))
        .status,
    ).toBe(403);
    expect(
      (await app.request('PATCH', `/projects/${siteId}/schedule`, { key: ws.keys.admin, body: { enabled: 'yes' } }))
        .status,
    ).toBe(422);
  });
});

describe('variant A', () => {
  it('refuses the variant B batch field on the schedule with 422', async () => {
    const a = await startTestApp({ variant: 'A' });
    try {
      const w = await seedOrg(a.ctx);
      const site = await a.request('POST', `/orgs/${w.orgId}/projects`, {
        key: w.keys.admin,
        body: { name: 'A', url: 'variant-a.com' },
      });
      const res = await a.request('PATCH', `/projects/${site.body.project.id}/schedule`, {
        key: w.keys.admin,
        body: { enabled: true, batch: true },
      });
      expect(res.status).toBe(422);
      expect(res.body.fields).toHaveProperty('batch');
    } finally {
      await a.close();
    }
  });
});
