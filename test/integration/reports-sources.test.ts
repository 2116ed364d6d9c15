import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { clusteredShare, clusterSums, wilson } from '../../src/analysis/intervals.ts';

/**
 * Sources, searches and sentiment over one week (2026-11-16) and one answer
 * the week before. Expected numbers worked out by hand from the answers below.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
const ids: Record<string, number> = {};
const answerIds: Record<string, number> = {};
const DAY = '2026-11-18T10:00:00Z';

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com', competitors: [{ name: 'Globex', domain: 'globex.com' }] },
  });
  siteId = site.body.project.id;
  const paused = await app.request('POST', `/projects/${siteId}/prompts`, {
    key: ws.keys.member,
    body: { text: 'P3 paused?', status: 'paused' },
  });
  expect(paused.status).toBe(200);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'P1 best?', askedAt: '2026-11-10T10:00:00Z', text: 'Acme is great.' },
  ]);
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
  for (const p of await app.ctx.db.selectFrom('prompts').select(['id', 'text']).where('siteId', '=', siteId).execute())
    ids[p.text] = p.id;
  for (const a of await app.ctx.db
    .selectFrom('answers')
    .select(['id', 'promptId', 'provider', 'day'])
    .where('siteId', '=', siteId)
    .execute()) {
    answerIds[`${a.promptId}|${a.provider}|${a.day}`] = a.id;
  }
});
afterAll(() => app.close());

/** A 95% interval as the reports show it: percent to one decimal (computed here from the pure functions, not read from a report). */
const range = (i: { low: number; high: number } | null) => {
  if (!i) throw new Error('expected an interval');
  return { low: Math.round(i.low * 1000) / 10, high: Math.round(i.high * 1000) / 10 };
};
/** Per prompt [numerator, denominator] pairs -> the clustered interval in percent. */
const clustered = (pairs: [number, number][]) => range(clusteredShare(clusterSums(pairs)));
const bounded = (name: string, i: { low: number; high: number }) => ({
  [`${name}Low`]: i.low,
  [`${name}High`]: i.high,
});

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });
const answerOf = (prompt: string, provider: string) => answerIds[`${ids[prompt]}|${provider}|2026-11-18`];

describe('GET /projects/:id/sources', () => {
  it('lists every cited domain with its site type and how often answers citing it name the brand', async () => {
    const res = await get('/sources');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      period: 'week',
      start: '2026-11-16',
      answered: 5,
      total: 6,
      page: 1,
      perPage: 50,
    });
    expect(res.body.sources).toMatchObject([
      { domain: 'reddit.com', siteType: 'ugc', count: 3, citations: 3, namesBrand: 66.7, share: 60 },
      { domain: 'acme.com', siteType: 'own', count: 2, citations: 3, namesBrand: 100, share: 40 },
      { domain: 'docs.acme.com', siteType: 'own', count: 1, citations: 1, namesBrand: 100, share: 20 },
      { domain: 'en.wikipedia.org', siteType: 'reference', count: 1, citations: 1, namesBrand: 0, share: 20 },
      { domain: 'g2.com', siteType: 'review', count: 1, citations: 1, namesBrand: 100, share: 20 },
      { domain: 'globex.com', siteType: 'competitor', count: 1, citations: 1, namesBrand: 0, share: 20 },
    ]);
    expect(res.body.siteTypes).toMatchObject([
      { siteType: 'own', domains: 2, citations: 4, share: 40 },
      { siteType: 'competitor', domains: 1, citations: 1, share: 10 },
      { siteType: 'ugc', domains: 1, citations: 3, share: 30 },
      { siteType: 'review', domains: 1, citations: 1, share: 10 },
      { siteType: 'reference', domains: 1, citations: 1, share: 10 },
    ]);
  });

  it('carries a 95% interval on every share, clustered by prompt', async () => {
    const { sources, siteTypes } = (await get('/sources')).body;
    const by = (d: string) => sources.find((s: { domain: string }) => s.domain === d);
    // Answered per prompt: P1 2, P2 2, P3 1. reddit.com cited by P1 twice (both naming the brand) and P2 once.
    expect(by('reddit.com')).toMatchObject({
      share: 60,
      ...bounded(
        'share',
        clustered([
          [2, 2],
          [1, 2],
          [0, 1],
        ]),
      ),
      namesBrand: 66.7,
      ...bounded(
        'namesBrand',
        clustered([
          [2, 2],
          [0, 1],
        ]),
      ),
    });
    // One answer of one prompt cites en.wikipedia.org (not naming the brand): the Wilson interval of 0 of 1.
    expect(by('en.wikipedia.org')).toMatchObject({ namesBrand: 0, ...bounded('namesBrand', range(wilson(0, 1))) });
    expect(by('g2.com')).toMatchObject({ namesBrand: 100, ...bounded('namesBrand', range(wilson(1, 1))) });
    // Citations per prompt: P1 7 (own 4, ugc 2, review 1), P2 2 (ugc 1, competitor 1), P3 1 (reference).
    const type = (t: string) => siteTypes.find((x: { siteType: string }) => x.siteType === t);
    expect(type('own')).toMatchObject({
      share: 40,
      ...bounded(
        'share',
        clustered([
          [4, 7],
          [0, 2],
          [0, 1],
        ]),
      ),
    });
    expect(type('ugc')).toMatchObject({
      share: 30,
      ...bounded(
        'share',
        clustered([
          [2, 7],
          [1, 2],
          [0, 1],
        ]),
      ),
    });
    for (const row of [...sources, ...siteTypes]) {
      expect(row.shareLow).toBeLessThanOrEqual(row.share);
      expect(row.shareHigh).toBeGreaterThanOrEqual(row.share);
      expect(row.shareLow).toBeGreaterThanOrEqual(0);
      expect(row.shareHigh).toBeLessThanOrEqual(100);
    }
    // A day reads the same per-prompt counts from that day's answers.
    expect((await get('/sources?period=day&start=2026-11-18')).body.sources).toEqual(sources);
    // No answers: no shares and no intervals.
    const empty = (await get('/sources?start=2025-01-06')).body;
    expect(empty.sources).toEqual([]);
    expect(empty.siteTypes).toEqual([]);
  });

  it('filters by site type and pages', async () => {
    const ugc = (await get('/sources?siteType=ugc')).body;
    expect(ugc.sources.map((s: { domain: string }) => s.domain)).toEqual(['reddit.com']);
    expect(ugc.total).toBe(1);
    const page2 = (await get('/sources?perPage=5&page=2')).body;
    expect(page2.sources.map((s: { domain: string }) => s.domain)).toEqual(['globex.com']);
    expect(page2.total).toBe(6);
    expect((await get('/sources?siteType=blog')).status).toBe(422);
    expect((await get('/sources?perPage=500')).body.fields).toEqual({
      perPage: 'perPage must be a whole number from 5 to 200',
    });
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
    expect(day).toMatchObject({
      period: 'day',
      start: '2026-11-18',
      end: '2026-11-18',
      periods: ['2026-11-10', '2026-11-18'],
    });
    expect(day.sources).toEqual(week.sources);
    expect(day.ownPages).toEqual(week.ownPages);
    expect((await get('/sources?period=day&start=2026-11-17')).body).toMatchObject({
      sources: [],
      ownPages: [],
      answered: 0,
    });
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
    // Tone per prompt among answers naming the brand: P1 positive and negative (2), P2 neutral (1): clustered by prompt.
    const p1p2 = (p1: number, p2: number) =>
      clustered([
        [p1, 2],
        [p2, 1],
      ]);
    expect(res.body.overall).toEqual({
      answers: 3,
      positive: 1,
      neutral: 1,
      negative: 1,
      positiveShare: 33.3,
      neutralShare: 33.3,
      negativeShare: 33.3,
      ...bounded('positiveShare', p1p2(1, 0)),
      ...bounded('neutralShare', p1p2(0, 1)),
      ...bounded('negativeShare', p1p2(1, 0)),
      score: 0.032,
    });
    // The week before: one positive answer, the Wilson interval of 1 of 1 (and 0 of 1).
    expect(res.body.previous).toEqual({
      answers: 1,
      positive: 1,
      neutral: 0,
      negative: 0,
      positiveShare: 100,
      neutralShare: 0,
      negativeShare: 0,
      ...bounded('positiveShare', range(wilson(1, 1))),
      ...bounded('neutralShare', range(wilson(0, 1))),
      ...bounded('negativeShare', range(wilson(0, 1))),
      score: 0.625,
    });
    const [openai, , perplexity] = res.body.providers;
    expect(openai).toMatchObject({ positiveShare: 100, ...bounded('positiveShare', range(wilson(1, 1))) });
    // An assistant whose answers never named the brand has no tone shares and no intervals.
    expect(perplexity).toMatchObject({ positiveShare: null, positiveShareLow: null, positiveShareHigh: null });
    // A day reads the same counts from that day's answers.
    expect((await get('/sentiment?period=day&start=2026-11-18')).body.overall).toEqual(res.body.overall);
    expect(
      res.body.providers.map((p: { provider: string; answers: number; score: number | null }) => [
        p.provider,
        p.answers,
        p.score,
      ]),
    ).toEqual([
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
    expect(res.answers.map((a: { answerId: number }) => a.answerId)).toEqual([
      answerOf('P2 cheap?', 'gemini'),
      answerOf('P1 best?', 'anthropic'),
      answerOf('P1 best?', 'openai'),
    ]);
    expect(res.answers[1]).toMatchObject({
      promptId: ids['P1 best?'],
      prompt: 'P1 best?',
      provider: 'anthropic',
      tone: 'negative',
      quote: 'Acme is terrible.',
      brandRank: 1,
    });
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
    expect((await get('/sentiment?engine=bing')).body.fields).toEqual({
      engine: expect.stringContaining('engine must be one of'),
    });
  });
});
