import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusteredShare, clusterSums, wilson } from '../../src/analysis/intervals.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * GET /projects/:id/report over a small scripted data set around a year end.
 * Every expected number below is worked out by hand from these answers.
 *
 * Weeks: W1 2026-12-21 (Dec, Q4), W2 2026-12-28 (Thursday 12-31 in Dec/Q4,
 * Friday 01-01 in Jan/Q1), W3 2027-01-04 (Jan, Q1).
 */

let app: TestApp;
let ws: Org;
let siteId: number;
let emptySiteId: number;
const P1 = 'Best CRM for startups?';
const P2 = 'Cheapest CRM?';
const P3 = 'CRM with email?';
const ids: Record<string, number> = {};

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  siteId = (await addAcmeSite(app, ws)).id;
  const empty = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Quiet', url: 'quiet.io' },
  });
  emptySiteId = empty.body.project.id;

  // W1, Sunday 2026-12-27 at the last second.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: P1,
      provider: 'openai',
      askedAt: '2026-12-27T23:59:59Z',
      text: 'Acme and Globex are both options.',
      citations: [{ url: 'https://acme.com/pricing', title: 'Pricing' }],
    },
    { prompt: P1, provider: 'anthropic', askedAt: '2026-12-27T23:59:59Z', text: 'Globex is fine.' },
    { prompt: P2, provider: 'openai', askedAt: '2026-12-27T23:59:59Z', text: 'Nothing relevant here.' },
    { prompt: P2, provider: 'anthropic', askedAt: '2026-12-27T23:59:59Z', text: null, error: 'timeout' },
  ]);
  // W2, Thursday 2026-12-31 (December, Q4 2026).
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: P1, provider: 'openai', askedAt: '2026-12-31T12:00:00Z', text: 'Globex beats Acme.' },
    {
      prompt: P2,
      provider: 'openai',
      askedAt: '2026-12-31T12:00:00Z',
      text: 'Acme is great.',
      citations: [{ url: 'https://reddit.com/r/x', title: 'r' }],
    },
    {
      prompt: P3,
      provider: 'openai',
      model: 'chatgpt-app',
      askedAt: '2026-12-31T12:00:00Z',
      text: 'Initech and Globex lead.',
      citations: [
        { url: 'https://www.reddit.com/r/crm', title: 'r' },
        { url: 'https://globex.com/pricing', title: 'G' },
      ],
    },
  ]);
  // W2, Friday 2027-01-01 at midnight (January, Q1 2027).
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: P1, provider: 'anthropic', askedAt: '2027-01-01T00:00:00Z', text: 'Nothing relevant here.' },
    {
      prompt: P2,
      provider: 'anthropic',
      model: 'claude-custom',
      askedAt: '2027-01-01T00:00:00Z',
      text: 'Initech is cheaper than Acme.',
    },
    { prompt: P3, provider: 'anthropic', askedAt: '2027-01-01T00:00:00Z', text: null, error: 'rate limited' },
  ]);
  // W3, Tuesday 2027-01-05.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: P1, provider: 'openai', askedAt: '2027-01-05T08:00:00Z', text: 'Globex is fine.' },
    { prompt: P2, provider: 'openai', askedAt: '2027-01-05T08:00:00Z', text: 'Acme is great.' },
  ]);
  const prompts = await app.ctx.db.selectFrom('prompts').select(['id', 'text']).where('siteId', '=', siteId).execute();
  for (const p of prompts) ids[p.text] = p.id;
});
afterAll(() => app.close());

const get = (path: string, siteOverride?: number) =>
  app.request('GET', `/projects/${siteOverride ?? siteId}${path}`, { key: ws.keys.viewer });
const none = {
  answers: 0,
  answered: 0,
  failed: 0,
  mentioned: 0,
  ownCited: 0,
  visibility: null,
  brandRank: null,
  shareOfVoice: null,
  ownCitationRate: null,
  visibilityLow: null,
  visibilityHigh: null,
  ownCitationRateLow: null,
  ownCitationRateHigh: null,
  shareOfVoiceLow: null,
  shareOfVoiceHigh: null,
};

describe('GET /projects/:id/report', () => {
  it('is null before the first scan, with no periods', async () => {
    const res = await get('/report', emptySiteId);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ period: 'week', report: null, periods: [] });
    expect(res.body.start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('answers 422 for a bad period or date, naming the parameter', async () => {
    const period = await get('/report?period=year');
    expect(period.status).toBe(422);
    expect(period.body.fields).toEqual({ period: 'period must be one of day, week, month, quarter' });
    const date = await get('/report?start=2026-02-30');
    expect(date.status).toBe(422);
    expect(date.body.fields).toEqual({ start: 'start is not a calendar date' });
    expect((await get('/report?start=yesterday')).body.fields).toEqual({ start: 'start must be a date, YYYY-MM-DD' });
  });

  it('defaults to the latest week with data and lists every week with data', async () => {
    const res = await get('/report');
    expect(res.body).toMatchObject({
      period: 'week',
      start: '2027-01-04',
      end: '2027-01-10',
      periods: ['2026-12-21', '2026-12-28', '2027-01-04'],
    });
    const r = res.body.report;
    expect(r.previousStart).toBe('2026-12-28');
    expect(r.current).toMatchObject({
      answers: 2,
      answered: 2,
      failed: 0,
      mentioned: 1,
      ownCited: 0,
      visibility: 50,
      brandRank: 1,
      shareOfVoice: 50,
    });
    expect(r.changes).toMatchObject({
      won: [],
      lost: [{ id: ids[P1], text: P1, verdict: 'lost', previousVerdict: 'named' }],
    });
  });

  it('normalises start to its week and compares with the week before (across the year end)', async () => {
    const res = await get('/report?start=2027-01-01');
    expect(res.body).toMatchObject({ start: '2026-12-28', end: '2027-01-03' });
    const r = res.body.report;
    expect(r.current).toMatchObject({
      answers: 6,
      answered: 5,
      failed: 1,
      mentioned: 3,
      ownCited: 0,
      visibility: 60,
      brandRank: 1.7,
      shareOfVoice: 42.9,
    });
    expect(r.previous).toMatchObject({
      answers: 4,
      answered: 3,
      failed: 1,
      mentioned: 1,
      ownCited: 1,
      visibility: 33.3,
      brandRank: 1,
      shareOfVoice: 33.3,
    });
    expect(r.change).toMatchObject({
      answers: 2,
      mentioned: 2,
      ownCited: -1,
      visibility: 26.7,
      brandRank: 0.7,
      shareOfVoice: 9.6,
    });
    expect(r.changes).toMatchObject({
      won: [{ id: ids[P2], text: P2, verdict: 'named', previousVerdict: 'missing' }],
      lost: [],
    });
  });

  it('ranks the brand and competitors by visibility', async () => {
    const { ranking } = (await get('/report?start=2026-12-28')).body.report;
    expect(ranking).toMatchObject([
      {
        rank: 1,
        name: 'Acme',
        kind: 'brand',
        competitorId: null,
        mentioned: 3,
        visibility: 60,
        shareOfVoice: 42.9,
        previousVisibility: 33.3,
      },
      {
        rank: 2,
        name: 'Globex',
        kind: 'competitor',
        competitorId: expect.any(Number),
        mentioned: 2,
        visibility: 40,
        shareOfVoice: 28.6,
        previousVisibility: 66.7,
      },
      {
        rank: 3,
        name: 'Initech',
        kind: 'competitor',
        competitorId: expect.any(Number),
        mentioned: 2,
        visibility: 40,
        shareOfVoice: 28.6,
        previousVisibility: 0,
      },
    ]);
  });

  it('has one row per assistant with its previous numbers', async () => {
    const { providers } = (await get('/report?start=2026-12-28')).body.report;
    expect(providers.map((p: { provider: string }) => p.provider)).toEqual(['openai', 'anthropic']);
    expect(providers[0]).toMatchObject({
      provider: 'openai',
      name: 'ChatGPT',
      answers: 3,
      answered: 3,
      mentioned: 2,
      visibility: 66.7,
      brandRank: 1.5,
      shareOfVoice: 40,
      previous: { answers: 2, answered: 2, mentioned: 1, visibility: 50, brandRank: 1, shareOfVoice: 50 },
      change: { visibility: 16.7, brandRank: 0.5 },
    });
    expect(providers[1]).toMatchObject({
      provider: 'anthropic',
      answers: 3,
      answered: 2,
      failed: 1,
      mentioned: 1,
      visibility: 50,
      brandRank: 2,
      shareOfVoice: 50,
      previous: { answers: 2, answered: 1, failed: 1, mentioned: 0, visibility: 0, brandRank: null, shareOfVoice: 0 },
      change: { visibility: 50, brandRank: null },
    });
  });

  it('lists the most cited sources and ten weeks of chart series', async () => {
    const r = (await get('/report?start=2026-12-28')).body.report;
    expect(r.topSources).toMatchObject([
      { domain: 'reddit.com', siteType: 'ugc', count: 2, citations: 2, namesBrand: 50 },
      { domain: 'globex.com', siteType: 'competitor', count: 1, citations: 1, namesBrand: 0 },
    ]);
    expect(r.series).toHaveLength(10);
    expect(r.series[0]).toEqual({ start: '2026-10-26', ...none, providers: {}, providerShares: {} });
    expect(r.series[8]).toMatchObject({
      start: '2026-12-21',
      visibility: 33.3,
      providers: { openai: 50, anthropic: 0 },
    });
    expect(r.series[9]).toMatchObject({
      start: '2026-12-28',
      visibility: 60,
      shareOfVoice: 42.9,
      providers: { openai: 66.7, anthropic: 50 },
    });
  });

  it('carries a 95% interval on every share, clustered by prompt, and says which changes are larger than noise', async () => {
    const r = (await get('/report?start=2026-12-28')).body.report;
    const pct = (v: number) => Math.round(v * 1000) / 10;
    // Per prompt (named, answered): P1 (1, 2), P2 (2, 2), P3 (0, 1 of 2: one failed): answers of one prompt are clustered.
    const visibility = clusteredShare(
      clusterSums([
        [1, 2],
        [2, 2],
        [0, 1],
      ]),
    ) as { low: number; high: number; method: string };
    expect(visibility.method).toBe('clustered');
    expect(r.current).toMatchObject({
      visibility: 60,
      visibilityLow: pct(visibility.low),
      visibilityHigh: pct(visibility.high),
      ownCitationRate: 0,
    });
    expect(r.current.visibilityLow).toBeLessThan(60);
    expect(r.current.visibilityHigh).toBeGreaterThan(60);
    // Brand mentions per prompt (brand named, all brand mentions): P1 (1, 2), P2 (2, 3), P3 (0, 2).
    const voice = clusteredShare(
      clusterSums([
        [1, 2],
        [2, 3],
        [0, 2],
      ]),
    ) as { low: number; high: number };
    expect(r.current).toMatchObject({
      shareOfVoice: 42.9,
      shareOfVoiceLow: pct(voice.low),
      shareOfVoiceHigh: pct(voice.high),
    });
    // Previous week: P1 (1, 2) with an own page cited, P2 (0, 1).
    const own = clusteredShare(
      clusterSums([
        [1, 2],
        [0, 1],
      ]),
    ) as { low: number; high: number };
    expect(r.previous).toMatchObject({
      ownCitationRate: 33.3,
      ownCitationRateLow: pct(own.low),
      ownCitationRateHigh: pct(own.high),
    });
    // Per assistant, one answer per prompt: the Wilson interval over answers (ChatGPT 2 of 3, Claude 1 of 2).
    const [openai, anthropic] = r.providers;
    const w = wilson(2, 3) as { low: number; high: number };
    expect(openai).toMatchObject({ visibility: 66.7, visibilityLow: pct(w.low), visibilityHigh: pct(w.high) });
    expect(anthropic).toMatchObject({ visibilityLow: pct((wilson(1, 2) as { low: number }).low) });
    // 33% -> 60% on five answers is well inside the noise; so is each prompt's move.
    expect(r.change).toMatchObject({
      visibility: 26.7,
      visibilityReal: false,
      shareOfVoiceReal: false,
      ownCitationRate: -33.3,
      ownCitationRateReal: false,
    });
    expect(openai.change).toMatchObject({ visibilityReal: false });
    expect(r.changes.won).toEqual([
      {
        id: ids[P2],
        text: P2,
        verdict: 'named',
        previousVerdict: 'missing',
        named: 2,
        answered: 2,
        previousNamed: 0,
        previousAnswered: 1,
        pValue: 0.3333,
        real: false,
      },
    ]);
    // Competitors carry intervals too, over the same denominators; the brand's row is the site's.
    expect(r.ranking[0]).toMatchObject({
      kind: 'brand',
      visibilityLow: r.current.visibilityLow,
      shareOfVoiceHigh: r.current.shareOfVoiceHigh,
    });
    for (const row of r.ranking) expect(row.visibilityLow).toBeLessThanOrEqual(row.visibility);
    // The chart series carries the bands.
    expect(r.series[9]).toMatchObject({
      visibilityLow: r.current.visibilityLow,
      visibilityHigh: r.current.visibilityHigh,
    });
    expect(r.series[0]).toMatchObject({ visibilityLow: null, visibilityHigh: null });
    // And each assistant's point its own bands: the same Wilson interval as its row (one answer per prompt).
    expect(r.series[9].providerShares.openai).toMatchObject({
      answered: 3,
      visibility: 66.7,
      visibilityLow: pct(w.low),
      visibilityHigh: pct(w.high),
    });
    expect(r.series[9].providerShares.anthropic).toMatchObject({
      visibilityLow: anthropic.visibilityLow,
      visibilityHigh: anthropic.visibilityHigh,
    });
    expect(r.series[8].providerShares.openai.visibilityLow).toBe(pct((wilson(1, 2) as { low: number }).low));
  });

  it('carries the scope the numbers were measured on (variant A)', async () => {
    const { scope } = (await get('/report?start=2026-12-28')).body.report;
    expect(scope).toEqual({
      assistants: [
        {
          provider: 'openai',
          name: 'ChatGPT',
          answers: 3,
          readFrom: ['api', 'app'],
          models: [
            { model: 'gpt-5-mini', readFrom: 'api', answers: 2 },
            { model: 'chatgpt-app', readFrom: 'app', answers: 1 },
          ],
        },
        {
          provider: 'anthropic',
          name: 'Claude',
          answers: 3,
          readFrom: ['api'],
          models: [
            { model: 'claude-sonnet-4-6', readFrom: 'api', answers: 2 },
            { model: 'claude-custom', readFrom: null, answers: 1 },
          ],
        },
      ],
      questions: 3,
      answersPerQuestion: 2,
      place: 'United States',
      language: 'English',
    });
  });

  it('sums months and quarters across the year end', async () => {
    const month = (await get('/report?period=month')).body;
    expect(month).toMatchObject({ start: '2027-01-01', end: '2027-01-31', periods: ['2026-12-01', '2027-01-01'] });
    expect(month.report.current).toMatchObject({
      answers: 5,
      answered: 4,
      failed: 1,
      mentioned: 2,
      ownCited: 0,
      visibility: 50,
      brandRank: 1.5,
      shareOfVoice: 50,
    });
    expect(month.report.previous).toMatchObject({
      answers: 7,
      answered: 6,
      failed: 1,
      mentioned: 3,
      ownCited: 1,
      visibility: 50,
      brandRank: 1.3,
      shareOfVoice: 37.5,
    });
    expect(month.report.changes).toMatchObject({
      won: [],
      lost: [{ id: ids[P1], text: P1, verdict: 'lost', previousVerdict: 'cited' }],
    });

    const quarter = (await get('/report?period=quarter&start=2027-03-31')).body;
    expect(quarter).toMatchObject({ start: '2027-01-01', end: '2027-03-31', periods: ['2026-10-01', '2027-01-01'] });
    expect(quarter.report.current).toEqual(month.report.current);
    expect(quarter.report.previous).toEqual(month.report.previous);
    expect(quarter.report.previousStart).toBe('2026-10-01');
    expect(quarter.report.series.map((s: { start: string }) => s.start).slice(-2)).toEqual([
      '2026-10-01',
      '2027-01-01',
    ]);
  });

  it('shows one day, with an empty day before it', async () => {
    const day = (await get('/report?period=day')).body;
    expect(day).toMatchObject({
      start: '2027-01-05',
      end: '2027-01-05',
      periods: ['2026-12-27', '2026-12-31', '2027-01-01', '2027-01-05'],
    });
    expect(day.report.current).toMatchObject({ answers: 2, visibility: 50 });
    expect(day.report.previous).toEqual(none);
    expect(day.report.change).toMatchObject({
      answers: 2,
      mentioned: 1,
      ownCited: 0,
      visibility: null,
      brandRank: null,
      shareOfVoice: null,
    });
    expect(day.report.changes).toEqual({ won: [], lost: [] });
    const newYear = (await get('/report?period=day&start=2027-01-01')).body.report;
    expect(newYear.current).toMatchObject({
      answers: 3,
      answered: 2,
      failed: 1,
      mentioned: 1,
      ownCited: 0,
      visibility: 50,
      brandRank: 2,
      shareOfVoice: 50,
    });
  });

  it('answers an empty period with zero counts and null metrics', async () => {
    const res = await get('/report?start=2026-11-30');
    expect(res.body).toMatchObject({ start: '2026-11-30', end: '2026-12-06' });
    expect(res.body.report.current).toEqual(none);
    expect(res.body.report.providers).toEqual([]);
    expect(res.body.report.ranking.map((r: { visibility: null }) => r.visibility)).toEqual([null, null, null]);
    expect(res.body.report.scope).toMatchObject({ assistants: [], questions: 0, answersPerQuestion: null });
  });
});

describe('GET /projects/:id/trends across the year end', () => {
  it('places each verdict in its week, month and quarter', async () => {
    const tails = async (query: string, n: number) =>
      Object.fromEntries(
        ((await get(`/trends${query}`)).body.prompts as { text: string; verdicts: unknown[] }[]).map((p) => [
          p.text,
          p.verdicts.slice(-n),
        ]),
      );
    expect(await tails('', 3)).toEqual({
      [P1]: ['cited', 'named', 'lost'],
      [P2]: ['missing', 'named', 'named'],
      [P3]: [null, 'lost', null],
    });
    expect(await tails('?period=month', 2)).toEqual({
      [P1]: ['cited', 'lost'],
      [P2]: ['named', 'named'],
      [P3]: ['lost', 'failed'],
    });
    expect(await tails('?period=quarter', 2)).toEqual({
      [P1]: ['cited', 'lost'],
      [P2]: ['named', 'named'],
      [P3]: ['lost', 'failed'],
    });
    expect(await tails('?period=day', 10)).toEqual({
      [P1]: ['cited', null, null, null, 'named', 'missing', null, null, null, 'lost'],
      [P2]: ['missing', null, null, null, 'named', 'named', null, null, null, 'named'],
      [P3]: [null, null, null, null, 'lost', 'failed', null, null, null, null],
    });
  });
});
