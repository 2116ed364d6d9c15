import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';

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
let ws: Workspace;
let siteId: number;
const ids: Record<string, number> = {};
const comp: Record<string, number> = {};
const DAY = '2026-11-18T10:00:00Z';

async function prompt(text: string, categories: string[]) {
  const res = await app.request('POST', `/projects/${siteId}/prompts`, { key: ws.keys.member, body: { text, categories } });
  ids[text] = res.body.prompt.id;
}

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedWorkspace(app.ctx);
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

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });

describe('GET /projects/:id/competitors', () => {
  it('sets the brand against every tracked competitor', async () => {
    const res = await get('/competitors');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-16', answered: 7 });
    expect(res.body.brand).toEqual({ name: 'Acme', mentioned: 4, visibility: 57.1, shareOfVoice: 44.4, previousVisibility: 50 });
    expect(res.body.competitors).toEqual([
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

  it('counts mentions per assistant', async () => {
    const { providers } = (await get('/competitors')).body;
    expect(providers).toEqual([
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
    expect(res.body.competitor).toEqual({ id: comp.Globex, name: 'Globex', domain: 'globex.com', aliases: [], color: null, logo: null });
    expect(res.body.current).toEqual({
      answered: 7,
      brand: { mentioned: 4, visibility: 57.1, cited: 0, shareOfVoice: 50 },
      competitor: { mentioned: 4, visibility: 57.1, cited: 2, shareOfVoice: 50 },
      both: 2,
      brandAhead: 1,
      competitorAhead: 1,
      onlyBrand: 2,
      onlyCompetitor: 2,
    });
    expect(res.body.previous).toEqual({
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

  it('pairs them per assistant and per category', async () => {
    const body = (await get(`/competitors/${comp.Globex}`)).body;
    expect(body.providers).toEqual([
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
    expect(body.categories).toEqual([
      { id: expect.any(Number), name: 'Email', answered: 2, brand: { mentioned: 0, visibility: 0 }, competitor: { mentioned: 1, visibility: 50 } },
      { id: expect.any(Number), name: 'Pricing', answered: 4, brand: { mentioned: 3, visibility: 75 }, competitor: { mentioned: 3, visibility: 75 } },
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
