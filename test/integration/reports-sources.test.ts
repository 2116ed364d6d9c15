import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';

/**
 * Sources, searches and sentiment over one week (2026-11-16) and one answer
 * the week before. Expected numbers worked out by hand from the answers below.
 */

let app: TestApp;
let ws: Workspace;
let siteId: number;
const ids: Record<string, number> = {};
const answerIds: Record<string, number> = {};
const DAY = '2026-11-18T10:00:00Z';

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedWorkspace(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com', competitors: [{ name: 'Globex', domain: 'globex.com' }] },
  });
  siteId = site.body.project.id;
  const paused = await app.request('POST', `/projects/${siteId}/prompts`, { key: ws.keys.member, body: { text: 'P3 paused?', status: 'paused' } });
  expect(paused.status).toBe(200);
  await seedAnswers(app.ctx, ws.orgId, siteId, [{ prompt: 'P1 best?', askedAt: '2026-11-10T10:00:00Z', text: 'Acme is great.' }]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'P1 best?',
      provider: 'openai',
      askedAt: DAY,
      text: 'Acme is excellent.',
      citations: [
        { url: 'https://www.acme.com/pricing', title: 'Pricing' },
        { url: 'https://acme.com/pricing?utm_source=chatgpt.com', title: 'Pricing' },
        { url: 'https://docs.acme.com/start', title: 'Start' },
        { url: 'https://www.reddit.com/r/a', title: 'a' },
        { url: 'https://www.g2.com/products/acme', title: 'G2' },
      ],
      searches: ['best crm', 'Best  CRM', 'crm pricing'],
    },
    {
      prompt: 'P1 best?',
      provider: 'anthropic',
      askedAt: DAY,
      text: 'Acme is terrible.',
      citations: [
        { url: 'https://acme.com/pricing', title: 'Pricing' },
        { url: 'https://reddit.com/r/b', title: 'b' },
      ],
      searches: ['best crm'],
    },
    {
      prompt: 'P2 cheap?',
      provider: 'openai',
      askedAt: DAY,
      text: 'Globex is fine.',
      citations: [
        { url: 'https://reddit.com/r/c', title: 'c' },
        { url: 'https://globex.com/features', title: 'F' },
      ],
      searches: ['cheap crm', 'best crm'],
    },
    { prompt: 'P2 cheap?', provider: 'gemini', askedAt: DAY, text: 'Acme is a company in Ohio.' },
    {
      prompt: 'P3 paused?',
      provider: 'openai',
      askedAt: DAY,
      text: 'Nothing relevant here.',
      citations: [{ url: 'https://en.wikipedia.org/wiki/CRM', title: 'CRM' }],
      searches: ['paused query'],
    },
    { prompt: 'P2 cheap?', provider: 'perplexity', askedAt: DAY, text: null, error: 'timeout' },
  ]);
  for (const p of await app.ctx.db.selectFrom('prompts').select(['id', 'text']).where('siteId', '=', siteId).execute()) ids[p.text] = p.id;
  for (const a of await app.ctx.db.selectFrom('answers').select(['id', 'promptId', 'provider', 'day']).where('siteId', '=', siteId).execute()) {
    answerIds[`${a.promptId}|${a.provider}|${a.day}`] = a.id;
  }
});
afterAll(() => app.close());

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });
const answerOf = (prompt: string, provider: string) => answerIds[`${ids[prompt]}|${provider}|2026-11-18`];

describe('GET /projects/:id/sources', () => {
  it('lists every cited domain with its site type and how often answers citing it name the brand', async () => {
    const res = await get('/sources');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-16', answered: 5, total: 6, page: 1, perPage: 50 });
    expect(res.body.sources).toEqual([
      { domain: 'reddit.com', siteType: 'ugc', count: 3, citations: 3, namesBrand: 66.7, share: 60 },
      { domain: 'acme.com', siteType: 'own', count: 2, citations: 3, namesBrand: 100, share: 40 },
      { domain: 'docs.acme.com', siteType: 'own', count: 1, citations: 1, namesBrand: 100, share: 20 },
      { domain: 'en.wikipedia.org', siteType: 'reference', count: 1, citations: 1, namesBrand: 0, share: 20 },
      { domain: 'g2.com', siteType: 'review', count: 1, citations: 1, namesBrand: 100, share: 20 },
      { domain: 'globex.com', siteType: 'competitor', count: 1, citations: 1, namesBrand: 0, share: 20 },
    ]);
    expect(res.body.siteTypes).toEqual([
      { siteType: 'own', domains: 2, citations: 4, share: 40 },
      { siteType: 'competitor', domains: 1, citations: 1, share: 10 },
      { siteType: 'ugc', domains: 1, citations: 3, share: 30 },
      { siteType: 'review', domains: 1, citations: 1, share: 10 },
      { siteType: 'reference', domains: 1, citations: 1, share: 10 },
    ]);
  });

  it('filters by site type and pages', async () => {
    const ugc = (await get('/sources?siteType=ugc')).body;
    expect(ugc.sources.map((s: { domain: string }) => s.domain)).toEqual(['reddit.com']);
    expect(ugc.total).toBe(1);
    const page2 = (await get('/sources?perPage=5&page=2')).body;
    expect(page2.sources.map((s: { domain: string }) => s.domain)).toEqual(['globex.com']);
    expect(page2.total).toBe(6);
    expect((await get('/sources?siteType=blog')).status).toBe(422);
    expect((await get('/sources?perPage=500')).body.fields).toEqual({ perPage: 'perPage must be a whole number from 5 to 200' });
  });

  it('lists the brand’s own pages with the prompts and assistants linking to each', async () => {
    const { ownPages } = (await get('/sources')).body;
    expect(ownPages).toEqual([
      {
        url: 'https://acme.com/pricing',
        count: 2,
        promptCount: 1,
        prompts: [{ id: ids['P1 best?'], text: 'P1 best?', count: 2 }],
        providers: [
          { provider: 'openai', count: 1 },
          { provider: 'anthropic', count: 1 },
        ],
      },
      {
        url: 'https://docs.acme.com/start',
        count: 1,
        promptCount: 1,
        prompts: [{ id: ids['P1 best?'], text: 'P1 best?', count: 1 }],
        providers: [{ provider: 'openai', count: 1 }],
      },
    ]);
  });

  it('reads a day from that day’s answers with the same numbers', async () => {
    const week = (await get('/sources')).body;
    const day = (await get('/sources?period=day')).body;
    expect(day).toMatchObject({ period: 'day', start: '2026-11-18', end: '2026-11-18', periods: ['2026-11-10', '2026-11-18'] });
    expect(day.sources).toEqual(week.sources);
    expect(day.ownPages).toEqual(week.ownPages);
    expect((await get('/sources?period=day&start=2026-11-17')).body).toMatchObject({ sources: [], ownPages: [], answered: 0 });
  });

  it('is empty in a week without answers', async () => {
    const res = (await get('/sources?start=2026-11-09')).body;
    expect(res).toMatchObject({ start: '2026-11-09', sources: [], total: 0, siteTypes: [], ownPages: [], answered: 1 });
  });
});

describe('GET /projects/:id/searches', () => {
  it('counts the searches of active prompts, most common first, spellings folded', async () => {
    const res = await get('/searches');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-16', total: 3, page: 1, perPage: 50 });
    expect(res.body.searches).toEqual([
      { query: 'best crm', count: 3, prompts: 2 },
      { query: 'cheap crm', count: 1, prompts: 1 },
      { query: 'crm pricing', count: 1, prompts: 1 },
    ]);
  });

  it('reads a day from that day’s answers', async () => {
    expect((await get('/searches?period=day')).body.searches).toEqual((await get('/searches')).body.searches);
    expect((await get('/searches?period=day&perPage=5&page=2')).body).toMatchObject({ searches: [], total: 3 });
    expect((await get('/searches?period=day&start=2026-11-10')).body).toMatchObject({ searches: [], total: 0 });
  });

  it('pages, and knows the total past the last page', async () => {
    const res = (await get('/searches?perPage=5&page=3')).body;
    expect(res).toMatchObject({ searches: [], total: 3, page: 3 });
    expect((await get('/searches?period=month')).body).toMatchObject({ start: '2026-11-01', total: 3 });
  });
});

describe('GET /projects/:id/sentiment', () => {
  it('gives tone per assistant among answers naming the brand', async () => {
    const res = await get('/sentiment');
    expect(res.status).toBe(200);
    expect(res.body.overall).toEqual({ answers: 3, positive: 1, neutral: 1, negative: 1, positiveShare: 33.3, neutralShare: 33.3, negativeShare: 33.3, score: 0.032 });
    expect(res.body.previous).toEqual({ answers: 1, positive: 1, neutral: 0, negative: 0, positiveShare: 100, neutralShare: 0, negativeShare: 0, score: 0.625 });
    expect(res.body.providers.map((p: { provider: string; answers: number; score: number | null }) => [p.provider, p.answers, p.score])).toEqual([
      ['openai', 1, 0.572],
      ['anthropic', 1, -0.477],
      ['perplexity', 0, null],
      ['gemini', 1, 0],
    ]);
    expect(res.body).not.toHaveProperty('answers');
  });

  it('answers=1 lists those answers with tone and quoted sentence, newest first', async () => {
    const res = (await get('/sentiment?answers=1')).body;
    expect(res).toMatchObject({ total: 3, page: 1, perPage: 50 });
    expect(res.answers.map((a: { answerId: number }) => a.answerId)).toEqual([answerOf('P2 cheap?', 'gemini'), answerOf('P1 best?', 'anthropic'), answerOf('P1 best?', 'openai')]);
    expect(res.answers[1]).toMatchObject({ promptId: ids['P1 best?'], prompt: 'P1 best?', provider: 'anthropic', tone: 'negative', quote: 'Acme is terrible.', brandRank: 1 });
    expect(res.answers[1].score).toBeCloseTo(-0.4767, 4);
  });

  it('filters the list by tone and engine, with totals from the same numbers', async () => {
    const negative = (await get('/sentiment?answers=1&tone=negative')).body;
    expect(negative.total).toBe(1);
    expect(negative.answers.map((a: { provider: string }) => a.provider)).toEqual(['anthropic']);
    const openai = (await get('/sentiment?answers=1&engine=openai')).body;
    expect(openai.total).toBe(1);
    expect(openai.answers.map((a: { quote: string }) => a.quote)).toEqual(['Acme is excellent.']);
    expect((await get('/sentiment?answers=1&page=2&perPage=5')).body).toMatchObject({ answers: [], total: 3 });
    expect((await get('/sentiment?answers=maybe')).status).toBe(422);
    expect((await get('/sentiment?engine=bing')).body.fields).toEqual({ engine: expect.stringContaining('engine must be one of') });
  });
});
