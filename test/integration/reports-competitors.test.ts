import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { clusteredShare, clusterSums, wilson } from '../../src/analysis/intervals.ts';

/**
 * /competitors and /competitors/:competitorId over the week of 2026-11-16 and
 * two answers the week before. Expected numbers worked out by hand.
 *
 * This week (answered 7): B1 P1 openai ranks Globex then Acme and cites
 * globex.com/pricing; B2 P1 anthropic Acme then Globex; B3 P2 openai Acme
 * only; B4 P2 anthropic Initech then Globex; B5 P3 openai Globex only, citing
 * two Globex pages; B6 P3 anthropic nobody; B7 P4 openai failed; B8 P5 openai
 * Acme only. Trello and Zoho CRM sit beside tracked brands in B1 and B3.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
const ids: Record<string, number> = {};
const comp: Record<string, number> = {};
const DAY = '2026-11-18T10:00:00Z';

async function prompt(text: string, categories: string[]) {
  const res = await app.request('POST', `/projects/${siteId}/prompts`, {
    key: ws.keys.member,
    body: { text, categories },
  });
  ids[text] = res.body.prompt.id;
}

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: {
      name: 'Acme',
      url: 'acme.com',
      competitors: [
        { name: 'Globex', domain: 'globex.com' },
        { name: 'Initech', domain: 'initech.com' },
        { name: 'Hooli', domain: 'hooli.com' },
      ],
    },
  });
  siteId = site.body.project.id;
  for (const c of site.body.project.competitors) comp[c.name] = c.id;
  await prompt('P1 best?', ['Pricing']);
  await prompt('P2 cheap?', ['Pricing']);
  await prompt('P3 email?', ['Email']);
  await prompt('P4 failing?', []);
  await prompt('P5 brand only?', []);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'P1 best?', askedAt: '2026-11-10T10:00:00Z', text: 'Globex is fine.' },
    { prompt: 'P2 cheap?', askedAt: '2026-11-10T10:00:00Z', text: 'Acme is great.' },
  ]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'P1 best?',
      provider: 'openai',
      askedAt: DAY,
      text: '1. **Globex**\n2. **Acme**\n3. **Trello**\n4. **Zoho CRM**',
      citations: [{ url: 'https://globex.com/pricing', title: 'G' }],
    },
    { prompt: 'P1 best?', provider: 'anthropic', askedAt: DAY, text: 'Acme and Globex are both options.' },
    { prompt: 'P2 cheap?', provider: 'openai', askedAt: DAY, text: 'Try Acme, Trello or Zoho CRM.' },
    { prompt: 'P2 cheap?', provider: 'anthropic', askedAt: DAY, text: 'Initech and Globex lead.' },
    {
      prompt: 'P3 email?',
      provider: 'openai',
      askedAt: DAY,
      text: 'Globex is fine.',
      citations: [
        { url: 'https://www.globex.com/features', title: 'F' },
        { url: 'https://globex.com/pricing?utm_source=x', title: 'G' },
      ],
    },
    { prompt: 'P3 email?', provider: 'anthropic', askedAt: DAY, text: 'Nothing relevant here.' },
    { prompt: 'P4 failing?', provider: 'openai', askedAt: DAY, text: null, error: 'timeout' },
    { prompt: 'P5 brand only?', provider: 'openai', askedAt: DAY, text: 'Acme is great.' },
  ]);
});
afterAll(() => app.close());

/** A 95% interval as the reports show it, percent to one decimal, computed here from the pure functions. */
const range = (i: { low: number; high: number } | null) => {
  if (!i) throw new Error('expected an interval');
  return { low: Math.round(i.low * 1000) / 10, high: Math.round(i.high * 1000) / 10 };
};
/** Per prompt [numerator, denominator] pairs (prompts with answers) -> the clustered interval. */
const clustered = (...pairs: [number, number][]) => range(clusteredShare(clusterSums(pairs)));
const bounded = (name: string, i: { low: number; high: number }) => ({
  [`${name}Low`]: i.low,
  [`${name}High`]: i.high,
});

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });

describe('GET /projects/:id/competitors', () => {
  it('sets the brand against every tracked competitor', async () => {
    const res = await get('/competitors');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-16', answered: 7 });
    expect(res.body.brand).toMatchObject({
      name: 'Acme',
      mentioned: 4,
      visibility: 57.1,
      shareOfVoice: 44.4,
      previousVisibility: 50,
    });
    expect(res.body.competitors).toMatchObject([
      {
        id: comp.Globex,
        name: 'Globex',
        domain: 'globex.com',
        color: null,
        logo: null,
        mentioned: 4,
        cited: 2,
        visibility: 57.1,
        shareOfVoice: 44.4,
        previousVisibility: 50,
        change: 7.1,
        headToHead: { both: 2, brandAhead: 1, competitorAhead: 1, onlyBrand: 2, onlyCompetitor: 2 },
      },
      {
        id: comp.Initech,
        name: 'Initech',
        domain: 'initech.com',
        color: null,
        logo: null,
        mentioned: 1,
        cited: 0,
        visibility: 14.3,
        shareOfVoice: 11.1,
        previousVisibility: 0,
        change: 14.3,
        headToHead: { both: 0, brandAhead: 0, competitorAhead: 0, onlyBrand: 4, onlyCompetitor: 1 },
      },
      {
        id: comp.Hooli,
        name: 'Hooli',
        domain: 'hooli.com',
        color: null,
        logo: null,
        mentioned: 0,
        cited: 0,
        visibility: 0,
        shareOfVoice: 0,
        previousVisibility: 0,
        change: 0,
        headToHead: { both: 0, brandAhead: 0, competitorAhead: 0, onlyBrand: 4, onlyCompetitor: 0 },
      },
    ]);
  });

  it('carries a 95% interval on every share: clustered by prompt overall, Wilson per assistant (one answer per prompt)', async () => {
    const { brand, competitors, providers } = (await get('/competitors')).body;
    // Answered per prompt: P1 2, P2 2, P3 2, P5 1 (P4 failed). The brand is named in P1 2, P2 1, P5 1; Globex in P1 2, P2 1, P3 1.
    expect(brand).toMatchObject({
      visibility: 57.1,
      ...bounded('visibility', clustered([2, 2], [1, 2], [0, 2], [1, 1])),
    });
    // Brand mentions (the brand's and tracked competitors') per prompt: P1 4, P2 3, P3 1, P5 1.
    expect(brand).toMatchObject({
      shareOfVoice: 44.4,
      ...bounded('shareOfVoice', clustered([2, 4], [1, 3], [0, 1], [1, 1])),
    });
    // The week before: one answer of P1 (Globex) and one of P2 (Acme).
    expect(brand).toMatchObject({ previousVisibility: 50, ...bounded('previousVisibility', range(wilson(1, 2))) });
    const globex = competitors.find((c: { name: string }) => c.name === 'Globex');
    expect(globex).toMatchObject({
      visibility: 57.1,
      ...bounded('visibility', clustered([2, 2], [1, 2], [1, 2], [0, 1])),
      shareOfVoice: 44.4,
      ...bounded('shareOfVoice', clustered([2, 4], [1, 3], [1, 1], [0, 1])),
      ...bounded('previousVisibility', range(wilson(1, 2))),
    });
    // Hooli is never named: 0% with an upper bound above 0, not a null.
    const hooli = competitors.find((c: { name: string }) => c.name === 'Hooli');
    expect(hooli).toMatchObject({ visibility: 0, visibilityLow: 0 });
    expect(hooli.visibilityHigh).toBeGreaterThan(0);
    // Per assistant each prompt gave one answer: the Wilson interval over answers.
    const [openai, anthropic] = providers;
    expect(openai.brand).toMatchObject({ visibility: 75, ...bounded('visibility', range(wilson(3, 4))) });
    expect(openai.competitors[0]).toMatchObject({
      id: comp.Globex,
      visibility: 50,
      ...bounded('visibility', range(wilson(2, 4))),
    });
    expect(anthropic.competitors[0]).toMatchObject({ visibility: 66.7, ...bounded('visibility', range(wilson(2, 3))) });
    expect(anthropic.competitors[1]).toMatchObject({ id: comp.Initech, ...bounded('visibility', range(wilson(1, 3))) });
    for (const c of [
      brand,
      ...competitors,
      ...providers.flatMap((p: { brand: unknown; competitors: unknown[] }) => [p.brand, ...p.competitors]),
    ]) {
      expect(c.visibilityLow).toBeLessThanOrEqual(c.visibility);
      expect(c.visibilityHigh).toBeGreaterThanOrEqual(c.visibility);
      expect(c.visibilityLow).toBeGreaterThanOrEqual(0);
      expect(c.visibilityHigh).toBeLessThanOrEqual(100);
    }
    // A day reads per-prompt counts from that day's answers: the same intervals.
    const day = (await get('/competitors?period=day&start=2026-11-18')).body;
    expect(day.competitors.map((c: { visibilityLow: number }) => c.visibilityLow)).toEqual(
      competitors.map((c: { visibilityLow: number }) => c.visibilityLow),
    );
    expect(day.providers).toEqual(providers);
    // No answers: null shares, null intervals.
    const empty = (await get('/competitors?start=2025-01-06')).body;
    expect(empty.brand).toMatchObject({
      visibility: null,
      visibilityLow: null,
      visibilityHigh: null,
      shareOfVoiceLow: null,
    });
    expect(empty.competitors[0]).toMatchObject({ visibility: null, visibilityLow: null, visibilityHigh: null });
  });

  it('counts mentions per assistant', async () => {
    const { providers } = (await get('/competitors')).body;
    expect(providers).toMatchObject([
      {
        provider: 'openai',
        name: 'ChatGPT',
        answered: 4,
        brand: { mentioned: 3, visibility: 75 },
        competitors: [
          { id: comp.Globex, mentioned: 2, visibility: 50 },
          { id: comp.Initech, mentioned: 0, visibility: 0 },
          { id: comp.Hooli, mentioned: 0, visibility: 0 },
        ],
      },
      {
        provider: 'anthropic',
        name: 'Claude',
        answered: 3,
        brand: { mentioned: 1, visibility: 33.3 },
        competitors: [
          { id: comp.Globex, mentioned: 2, visibility: 66.7 },
          { id: comp.Initech, mentioned: 1, visibility: 33.3 },
          { id: comp.Hooli, mentioned: 0, visibility: 0 },
        ],
      },
    ]);
  });

  it('suggests untracked names seen in at least two answers', async () => {
    expect((await get('/competitors')).body.suggestions).toEqual([
      { name: 'Trello', count: 2 },
      { name: 'Zoho CRM', count: 2 },
    ]);
    // The week before lists no names beside tracked brands.
    expect((await get('/competitors?start=2026-11-10')).body.suggestions).toEqual([]);
  });
});

describe('GET /projects/:id/competitors/:competitorId', () => {
  it('pairs the brand with the competitor, now and the week before', async () => {
    const res = await get(`/competitors/${comp.Globex}`);
    expect(res.status).toBe(200);
    expect(res.body.competitor).toEqual({
      id: comp.Globex,
      name: 'Globex',
      domain: 'globex.com',
      aliases: [],
      color: null,
      logo: null,
    });
    expect(res.body.current).toMatchObject({
      answered: 7,
      brand: { mentioned: 4, visibility: 57.1, cited: 0, shareOfVoice: 50 },
      competitor: { mentioned: 4, visibility: 57.1, cited: 2, shareOfVoice: 50 },
      both: 2,
      brandAhead: 1,
      competitorAhead: 1,
      onlyBrand: 2,
      onlyCompetitor: 2,
    });
    expect(res.body.previous).toMatchObject({
      answered: 2,
      brand: { mentioned: 1, visibility: 50, cited: 0, shareOfVoice: 50 },
      competitor: { mentioned: 1, visibility: 50, cited: 0, shareOfVoice: 50 },
      both: 0,
      brandAhead: 0,
      competitorAhead: 0,
      onlyBrand: 1,
      onlyCompetitor: 1,
    });
  });

  it('carries the paired numbers’ intervals: clustered by prompt, Wilson per assistant', async () => {
    const body = (await get(`/competitors/${comp.Globex}`)).body;
    // Per prompt (answered, brand named, Globex named): P1 (2, 2, 2), P2 (2, 1, 1), P3 (2, 0, 1), P5 (1, 1, 0).
    expect(body.current.brand).toMatchObject({
      ...bounded('visibility', clustered([2, 2], [1, 2], [0, 2], [1, 1])),
      // Share of voice between the two: brand mentions over both brands' mentions per prompt.
      ...bounded('shareOfVoice', clustered([2, 4], [1, 2], [0, 1], [1, 1])),
    });
    expect(body.current.competitor).toMatchObject({
      ...bounded('visibility', clustered([2, 2], [1, 2], [1, 2], [0, 1])),
      ...bounded('shareOfVoice', clustered([2, 4], [1, 2], [1, 1], [0, 1])),
    });
    expect(body.previous.competitor).toMatchObject({ visibility: 50, ...bounded('visibility', range(wilson(1, 2))) });
    const [openai] = body.providers;
    expect(openai.brand).toMatchObject({ visibility: 75, ...bounded('visibility', range(wilson(3, 4))) });
    expect(openai.competitor).toMatchObject({ visibility: 50, ...bounded('visibility', range(wilson(2, 4))) });
    expect(openai.brand).toMatchObject({
      shareOfVoice: 60,
      ...bounded('shareOfVoice', clustered([1, 2], [1, 1], [0, 1], [1, 1])),
    });
    const [email, pricing] = body.categories;
    expect(pricing.brand).toMatchObject({ visibility: 75, ...bounded('visibility', clustered([2, 2], [1, 2])) });
    expect(email.competitor).toMatchObject({ visibility: 50, ...bounded('visibility', clustered([1, 2])) });
  });

  it('pairs them per assistant and per category', async () => {
    const body = (await get(`/competitors/${comp.Globex}`)).body;
    expect(body.providers).toMatchObject([
      {
        provider: 'openai',
        name: 'ChatGPT',
        answered: 4,
        brand: { mentioned: 3, visibility: 75, cited: 0, shareOfVoice: 60 },
        competitor: { mentioned: 2, visibility: 50, cited: 2, shareOfVoice: 40 },
        both: 1,
        brandAhead: 0,
        competitorAhead: 1,
        onlyBrand: 2,
        onlyCompetitor: 1,
      },
      {
        provider: 'anthropic',
        name: 'Claude',
        answered: 3,
        brand: { mentioned: 1, visibility: 33.3, cited: 0, shareOfVoice: 33.3 },
        competitor: { mentioned: 2, visibility: 66.7, cited: 0, shareOfVoice: 66.7 },
        both: 1,
        brandAhead: 1,
        competitorAhead: 0,
        onlyBrand: 0,
        onlyCompetitor: 1,
      },
    ]);
    expect(body.categories).toMatchObject([
      {
        id: expect.any(Number),
        name: 'Email',
        answered: 2,
        brand: { mentioned: 0, visibility: 0 },
        competitor: { mentioned: 1, visibility: 50 },
      },
      {
        id: expect.any(Number),
        name: 'Pricing',
        answered: 4,
        brand: { mentioned: 3, visibility: 75 },
        competitor: { mentioned: 3, visibility: 75 },
      },
    ]);
  });

  it('splits prompts three ways and lists the competitor’s cited pages', async () => {
    const body = (await get(`/competitors/${comp.Globex}`)).body;
    const p = (t: string) => ({ id: ids[t], text: t });
    expect(body.prompts).toEqual({
      counts: { both: 2, onlyBrand: 1, onlyCompetitor: 1 },
      both: [p('P1 best?'), p('P2 cheap?')],
      onlyBrand: [p('P5 brand only?')],
      onlyCompetitor: [p('P3 email?')],
    });
    expect(body.pages).toEqual([
      { url: 'https://globex.com/pricing', count: 2 },
      { url: 'https://globex.com/features', count: 1 },
    ]);
    const initech = (await get(`/competitors/${comp.Initech}`)).body;
    expect(initech.prompts.counts).toEqual({ both: 1, onlyBrand: 2, onlyCompetitor: 0 });
    expect(initech.pages).toEqual([]);
  });

  it('reads a day’s prompts and categories from that day’s answers', async () => {
    const week = (await get(`/competitors/${comp.Globex}`)).body;
    const day = (await get(`/competitors/${comp.Globex}?period=day`)).body;
    expect(day).toMatchObject({ period: 'day', start: '2026-11-18' });
    expect(day.prompts).toEqual(week.prompts);
    expect(day.categories).toEqual(week.categories);
    const before = (await get(`/competitors/${comp.Globex}?period=day&start=2026-11-10`)).body;
    expect(before.prompts).toEqual({
      counts: { both: 0, onlyBrand: 1, onlyCompetitor: 1 },
      both: [],
      onlyBrand: [{ id: ids['P2 cheap?'], text: 'P2 cheap?' }],
      onlyCompetitor: [{ id: ids['P1 best?'], text: 'P1 best?' }],
    });
    expect(before.categories.find((c: { name: string }) => c.name === 'Pricing')).toMatchObject({
      answered: 2,
      brand: { mentioned: 1, visibility: 50 },
      competitor: { mentioned: 1, visibility: 50 },
    });
  });

  it('answers 404 for a competitor that is not this site’s', async () => {
    const res = await get('/competitors/999999');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No competitor with id 999999', fields: null });
  });
});
