import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Stability } from '../../src/analysis/index.ts';
import type { Period } from '../../src/domain/common/periods.ts';
import {
  competitorFilter,
  historySquares,
  promptResults,
  resultDefaultDir,
  resultSortKey,
  scannedFilter,
  stabilityFilter,
  stabilityOf,
  verdictFilter,
  type ResultSort,
} from '../../src/domain/prompts/verdicts.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * One prompt's results, one answer word for word, the helpers the prompt
 * list uses for its result columns, filters and sorts, and the dashboard.
 * Weeks of November 2026: W1 11-02, W2 11-09, W3 11-16 (no answers), W4 11-23.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
let quietSiteId: number;
const id: Record<string, number> = {};
const answer: Record<string, number> = {};
const at = (day: string, time = '09:00') => `${day}T${time}:00Z`;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  siteId = (await addAcmeSite(app, ws)).id;
  quietSiteId = (
    await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Quiet', url: 'quiet.io' },
    })
  ).body.project.id;
  for (const text of ['Q1 alpha?', 'Q2 beta?', 'Q3 never?', 'Q4 gamma?']) {
    id[text] = (
      await app.request('POST', `/projects/${siteId}/prompts`, { key: ws.keys.member, body: { text } })
    ).body.prompt.id;
  }
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'Q1 alpha?', provider: 'openai', askedAt: at('2026-11-03'), text: 'Acme is great.' },
    { prompt: 'Q1 alpha?', provider: 'anthropic', askedAt: at('2026-11-03'), text: 'Globex is fine.' },
    { prompt: 'Q2 beta?', provider: 'openai', askedAt: at('2026-11-03'), text: 'Nothing relevant here.' },
    { prompt: 'Q4 gamma?', provider: 'openai', askedAt: at('2026-11-03'), text: 'Acme is great.' },
  ]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'Q1 alpha?', provider: 'openai', askedAt: at('2026-11-10'), text: 'Globex beats Acme.' },
    { prompt: 'Q2 beta?', provider: 'openai', askedAt: at('2026-11-10'), text: 'Acme is great.' },
  ]);
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    {
      prompt: 'Q1 alpha?',
      provider: 'openai',
      askedAt: at('2026-11-24'),
      text: 'Acme and Globex are both options.',
      citations: [{ url: 'https://www.acme.com/pricing?utm_source=chatgpt.com', title: 'Pricing' }],
      searches: ['acme vs globex'],
      context: 'I run a small shop.',
    },
    { prompt: 'Q1 alpha?', provider: 'anthropic', askedAt: at('2026-11-24'), text: null, error: 'timeout' },
    { prompt: 'Q1 alpha?', provider: 'gemini', askedAt: at('2026-11-24'), text: 'Initech is cheaper than Acme.' },
    { prompt: 'Q2 beta?', provider: 'openai', askedAt: at('2026-11-24', '12:00'), text: 'Globex is fine.' },
    { prompt: 'Q2 beta?', provider: 'perplexity', askedAt: at('2026-11-24', '12:00'), text: 'Globex beats Acme.' },
    { prompt: 'Q4 gamma?', provider: 'openai', askedAt: at('2026-11-24', '06:00'), text: 'Nothing relevant here.' },
  ]);
  for (const a of await app.ctx.db
    .selectFrom('answers')
    .select(['id', 'promptId', 'provider', 'day'])
    .where('siteId', '=', siteId)
    .execute()) {
    answer[`${a.promptId}|${a.provider}|${a.day}`] = a.id;
  }
});
afterAll(() => app.close());

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });
const answerId = (prompt: string, provider: string, day: string) =>
  answer[`${id[prompt]}|${provider}|${day}`] as number;
const none = {
  openai: null,
  anthropic: null,
  perplexity: null,
  gemini: null,
  'google-ai-overview': null,
  'google-ai-mode': null,
};

describe('GET /projects/:id/prompts/:promptId', () => {
  it('carries the latest verdict per assistant, a week-by-week history and stability', async () => {
    const res = await get(`/prompts/${id['Q1 alpha?']}`);
    expect(res.status).toBe(200);
    expect(res.body.prompt).toMatchObject({
      id: id['Q1 alpha?'],
      text: 'Q1 alpha?',
      status: 'active',
      stability: 'held',
    });
    expect(res.body.prompt.latest).toEqual({ ...none, openai: 'cited', anthropic: 'failed', gemini: 'named' });
    expect(res.body.prompt.history).toEqual([
      { start: '2026-11-02', verdict: 'named', providers: { ...none, openai: 'named', anthropic: 'lost' } },
      { start: '2026-11-09', verdict: 'named', providers: { ...none, openai: 'named' } },
      { start: '2026-11-16', verdict: null, providers: none },
      {
        start: '2026-11-23',
        verdict: 'cited',
        providers: { ...none, openai: 'cited', anthropic: 'failed', gemini: 'named' },
      },
    ]);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-23' });
    expect(res.body.squares.map((s: { verdict: string | null }) => s.verdict)).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      'named',
      'named',
      null,
      'cited',
    ]);
    expect(res.body.latestAnswers.openai).toEqual({
      answerId: answerId('Q1 alpha?', 'openai', '2026-11-24'),
      askedAt: '2026-11-24T09:00:00.000Z',
      verdict: 'cited',
      brandRank: 1,
      samples: 1,
      answered: 1,
      named: 1,
    });
    expect(res.body.latestAnswers.perplexity).toBeNull();
  });

  it('lists every answer over time as results, newest first, in pages', async () => {
    const res = (await get(`/prompts/${id['Q1 alpha?']}`)).body;
    expect(res.total).toBe(6);
    expect(
      res.results.map((r: { provider: string; verdict: string; askedAt: string }) => [
        r.askedAt.slice(0, 10),
        r.provider,
        r.verdict,
      ]),
    ).toEqual([
      ['2026-11-24', 'gemini', 'named'],
      ['2026-11-24', 'anthropic', 'failed'],
      ['2026-11-24', 'openai', 'cited'],
      ['2026-11-10', 'openai', 'named'],
      ['2026-11-03', 'anthropic', 'lost'],
      ['2026-11-03', 'openai', 'named'],
    ]);
    expect(res.results[1]).toMatchObject({ error: 'timeout', mentioned: false, brandRank: null });
    const page2 = (await get(`/prompts/${id['Q1 alpha?']}?perPage=5&page=2`)).body;
    expect(page2.results.map((r: { id: number }) => r.id)).toEqual([answerId('Q1 alpha?', 'openai', '2026-11-03')]);
  });

  it('takes the period parameters for its stability window', async () => {
    const month = (await get(`/prompts/${id['Q4 gamma?']}?period=month`)).body;
    expect(month).toMatchObject({ period: 'month', start: '2026-11-01' });
    expect(month.prompt.stability).toBe('volatile');
    expect((await get(`/prompts/${id['Q4 gamma?']}`)).body.prompt.stability).toBe('lost');
    expect((await get(`/prompts/${id['Q4 gamma?']}?period=hour`)).status).toBe(422);
  });

  it('shows a prompt never asked with empty results', async () => {
    const res = (await get(`/prompts/${id['Q3 never?']}`)).body;
    expect(res.prompt).toMatchObject({ latest: none, history: [], stability: null });
    expect(res).toMatchObject({ results: [], total: 0 });
  });

  it('answers 404 for a prompt that is not this site’s', async () => {
    const res = await get('/prompts/999999');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('No prompt with id 999999');
  });
});

describe('GET /projects/:id/prompts/:promptId/answer', () => {
  it('shows the first assistant that answered, word for word, with brands, sources, searches and persona context', async () => {
    const res = await get(`/prompts/${id['Q1 alpha?']}/answer`);
    expect(res.status).toBe(200);
    expect(res.body.engine).toBe('openai');
    expect(res.body.prompt).toEqual({ id: id['Q1 alpha?'], text: 'Q1 alpha?' });
    expect(res.body.answer).toMatchObject({
      id: answerId('Q1 alpha?', 'openai', '2026-11-24'),
      provider: 'openai',
      text: 'Acme and Globex are both options.',
      verdict: 'cited',
      mentioned: true,
      ownCited: true,
      brandRank: 1,
      brands: [
        { name: 'Acme', kind: 'brand', position: 0 },
        { name: 'Globex', kind: 'competitor', position: 9 },
      ],
      citations: [
        {
          url: 'https://www.acme.com/pricing?utm_source=chatgpt.com',
          title: 'Pricing',
          domain: 'acme.com',
          siteType: 'own',
        },
      ],
      searches: ['acme vs globex'],
      context: 'I run a small shop.',
    });
    expect(res.body.engines.map((e: { provider: string; verdict: string }) => [e.provider, e.verdict])).toEqual([
      ['openai', 'cited'],
      ['anthropic', 'failed'],
      ['gemini', 'named'],
    ]);
  });

  it('picks an assistant’s latest answer with engine, a past one with r', async () => {
    const failed = (await get(`/prompts/${id['Q1 alpha?']}/answer?engine=anthropic`)).body;
    expect(failed).toMatchObject({ engine: 'anthropic', answer: { verdict: 'failed', text: null, error: 'timeout' } });
    const never = (await get(`/prompts/${id['Q1 alpha?']}/answer?engine=perplexity`)).body;
    expect(never).toMatchObject({ engine: 'perplexity', answer: null });
    const past = (await get(`/prompts/${id['Q1 alpha?']}/answer?r=${answerId('Q1 alpha?', 'anthropic', '2026-11-03')}`))
      .body;
    expect(past.answer).toMatchObject({
      provider: 'anthropic',
      text: 'Globex is fine.',
      verdict: 'lost',
      brands: [{ name: 'Globex', kind: 'competitor', position: 0 }],
    });
  });

  it('answers 404 for an answer of another prompt and 422 for bad parameters', async () => {
    const other = await get(`/prompts/${id['Q1 alpha?']}/answer?r=${answerId('Q2 beta?', 'openai', '2026-11-24')}`);
    expect(other.status).toBe(404);
    const both = await get(`/prompts/${id['Q1 alpha?']}/answer?engine=openai&r=1`);
    expect(both.status).toBe(422);
    expect(both.body.fields).toEqual({ r: 'give engine or r, not both' });
    expect((await get(`/prompts/${id['Q1 alpha?']}/answer?engine=bing`)).status).toBe(422);
    expect((await get(`/prompts/${id['Q1 alpha?']}/answer?r=abc`)).status).toBe(422);
  });

  it('is null for a prompt never asked', async () => {
    expect((await get(`/prompts/${id['Q3 never?']}/answer`)).body).toEqual({
      prompt: { id: id['Q3 never?'], text: 'Q3 never?' },
      engine: null,
      answer: null,
      engines: [],
    });
  });
});

describe('prompt list helpers', () => {
  const matching = (where: ReturnType<typeof verdictFilter>) =>
    app.ctx.db
      .selectFrom('prompts as p')
      .select('p.text')
      .where('p.siteId', '=', siteId)
      .where(where)
      .orderBy('p.id')
      .execute()
      .then((rows) => rows.map((r) => r.text));

  it('give each prompt its latest verdicts, history squares and stability', async () => {
    const results = await promptResults(
      app.ctx.db,
      siteId,
      [id['Q1 alpha?'] as number, id['Q3 never?'] as number, id['Q4 gamma?'] as number],
      'week',
      '2026-11-23',
    );
    expect(results.get(id['Q1 alpha?'] as number)).toMatchObject({
      latest: { ...none, openai: 'cited', anthropic: 'failed', gemini: 'named' },
      stability: 'held',
    });
    expect(results.get(id['Q1 alpha?'] as number)?.history.slice(-4)).toEqual([
      { start: '2026-11-02', verdict: 'named' },
      { start: '2026-11-09', verdict: 'named' },
      { start: '2026-11-16', verdict: null },
      { start: '2026-11-23', verdict: 'cited' },
    ]);
    expect(results.get(id['Q3 never?'] as number)).toEqual({
      latest: none,
      history: expect.any(Array),
      stability: null,
      stabilityChange: null,
      consistency: null,
    });
    expect(results.get(id['Q4 gamma?'] as number)?.stability).toBe('lost');
  });

  it('filter by any assistant’s latest verdict', async () => {
    expect(await matching(verdictFilter(siteId, 'cited'))).toEqual(['Q1 alpha?']);
    expect(await matching(verdictFilter(siteId, 'named'))).toEqual(['Q1 alpha?', 'Q2 beta?']);
    expect(await matching(verdictFilter(siteId, 'lost'))).toEqual(['Q2 beta?']);
    expect(await matching(verdictFilter(siteId, 'missing'))).toEqual(['Q4 gamma?']);
    expect(await matching(verdictFilter(siteId, 'failed'))).toEqual(['Q1 alpha?']);
  });

  it('filter by a tracked competitor named in the latest answers, ignoring case', async () => {
    expect(await matching(competitorFilter(siteId, 'globex'))).toEqual(['Q1 alpha?', 'Q2 beta?']);
    expect(await matching(competitorFilter(siteId, 'Initech'))).toEqual(['Q1 alpha?']);
    expect(await matching(competitorFilter(siteId, 'Nobody'))).toEqual([]);
  });

  it('filter by scanned', async () => {
    expect(await matching(scannedFilter('yes'))).toEqual(['Q1 alpha?', 'Q2 beta?', 'Q4 gamma?']);
    expect(await matching(scannedFilter('never'))).toEqual(['Q3 never?']);
  });

  it('filter by stability exactly as stability() reads the history squares', async () => {
    expect(await matching(stabilityFilter(siteId, 'week', '2026-11-23', 'held'))).toEqual(['Q1 alpha?']);
    expect(await matching(stabilityFilter(siteId, 'week', '2026-11-23', 'volatile'))).toEqual(['Q2 beta?']);
    expect(await matching(stabilityFilter(siteId, 'week', '2026-11-23', 'lost'))).toEqual(['Q4 gamma?']);
    const all = Object.values(id);
    const cases: [Period, string][] = [
      ['week', '2026-11-02'],
      ['week', '2026-11-09'],
      ['week', '2026-11-16'],
      ['week', '2026-11-23'],
      ['week', '2027-01-25'],
      ['day', '2026-11-24'],
      ['month', '2026-11-01'],
      ['quarter', '2026-10-01'],
    ];
    for (const [period, start] of cases) {
      const squares = await historySquares(app.ctx.db, siteId, all, period, start);
      for (const value of ['held', 'volatile', 'lost'] as Stability[]) {
        const expected = Object.entries(id)
          .filter(([, pid]) => stabilityOf(squares.get(pid) ?? []) === value)
          .map(([text]) => text)
          .sort();
        expect(
          (await matching(stabilityFilter(siteId, period, start, value))).sort(),
          `${period} ${start} ${value}`,
        ).toEqual(expected);
      }
    }
  });

  it('sort by mean latest rank and by last scan, prompts without one last', async () => {
    const sorted = async (sort: ResultSort, dir: 'asc' | 'desc') =>
      (
        await app.ctx.db
          .selectFrom('prompts as p')
          .select('p.text')
          .where('p.siteId', '=', siteId)
          .orderBy(resultSortKey(sort), (ob) => (dir === 'asc' ? ob.asc() : ob.desc()).nullsLast())
          .orderBy('p.id', dir)
          .execute()
      ).map((r) => r.text);
    expect(resultDefaultDir('rank')).toBe('asc');
    expect(resultDefaultDir('scanned')).toBe('desc');
    // Prompts without a rank (never asked, or never ranking the brand) tie and follow by id.
    expect(await sorted('rank', 'asc')).toEqual(['Q1 alpha?', 'Q2 beta?', 'Q3 never?', 'Q4 gamma?']);
    expect(await sorted('rank', 'desc')).toEqual(['Q2 beta?', 'Q1 alpha?', 'Q4 gamma?', 'Q3 never?']);
    expect(await sorted('scanned', 'desc')).toEqual(['Q2 beta?', 'Q1 alpha?', 'Q4 gamma?', 'Q3 never?']);
    expect(await sorted('scanned', 'asc')).toEqual(['Q4 gamma?', 'Q1 alpha?', 'Q2 beta?', 'Q3 never?']);
  });
});

describe('GET /orgs/:orgId/dashboard', () => {
  it('shows each site’s latest week, the same numbers as its weekly report', async () => {
    const res = await app.request('GET', `/orgs/${ws.orgId}/dashboard`, { key: ws.keys.viewer });
    expect(res.status).toBe(200);
    const acme = res.body.sites.find((s: { id: number }) => s.id === siteId);
    expect(acme).toMatchObject({
      period: 'week',
      start: '2026-11-23',
      answers: 6,
      visibility: 60,
      mentioned: 3,
      ownCited: 1,
      brandRank: 1.7,
      shareOfVoice: 42.9,
    });
    expect(acme.lastScanAt).toEqual(expect.any(String));
    const report = (await get('/report')).body.report.current;
    expect(acme).toMatchObject({
      answers: report.answers,
      visibility: report.visibility,
      brandRank: report.brandRank,
      shareOfVoice: report.shareOfVoice,
    });
    expect(acme).toMatchObject({
      visibilityLow: report.visibilityLow,
      visibilityHigh: report.visibilityHigh,
      shareOfVoiceLow: report.shareOfVoiceLow,
    });
    expect(acme.visibilityLow).toBeLessThan(60);
    const quiet = res.body.sites.find((s: { id: number }) => s.id === quietSiteId);
    expect(quiet).toMatchObject({
      start: null,
      answers: 0,
      visibility: null,
      mentioned: null,
      ownCited: null,
      brandRank: null,
      shareOfVoice: null,
      lastScanAt: null,
    });
  });
});
