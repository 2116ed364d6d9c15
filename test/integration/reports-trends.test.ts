import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * GET /projects/:id/trends over four weeks of November 2026 (Wc has no
 * answers). Expected numbers worked out by hand from the answers below.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
const ids: Record<string, number> = {};
const NAMED = 'Acme is great.';
const LOST = 'Globex is fine.';
const MISSING = 'Nothing relevant here.';
const BOTH = 'Acme and Globex are both options.';

async function prompt(text: string, categories: string[], status = 'active') {
  const res = await app.request('POST', `/projects/${siteId}/prompts`, {
    key: ws.keys.member,
    body: { text, categories, status },
  });
  expect(res.status).toBe(200);
  ids[text] = res.body.prompt.id;
}

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Acme', url: 'acme.com', competitors: [{ name: 'Globex', domain: 'globex.com' }] },
  });
  siteId = site.body.project.id;
  await prompt('P1 held?', ['Pricing']);
  await prompt('P2 lost?', ['Pricing', 'Email']);
  await prompt('P3 volatile?', ['Email']);
  await prompt('P4 never named?', []);
  await prompt('P5 paused?', [], 'paused');
  await prompt('P6 never asked?', []);
  await app.request('POST', `/projects/${siteId}/categories`, { key: ws.keys.member, body: { name: 'Empty' } });
  const at = (day: string) => `${day}T09:00:00Z`;
  // Wa, week of 2026-11-02.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'P1 held?', askedAt: at('2026-11-03'), text: NAMED },
    { prompt: 'P2 lost?', askedAt: at('2026-11-03'), text: NAMED },
    { prompt: 'P3 volatile?', askedAt: at('2026-11-03'), text: MISSING },
    { prompt: 'P5 paused?', askedAt: at('2026-11-03'), text: NAMED },
  ]);
  // Wb, week of 2026-11-09.
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'P1 held?', askedAt: at('2026-11-10'), text: BOTH },
    { prompt: 'P2 lost?', askedAt: at('2026-11-10'), text: LOST },
    { prompt: 'P4 never named?', askedAt: at('2026-11-10'), text: MISSING },
  ]);
  // Wd, week of 2026-11-23 (the week of 11-16 has no answers).
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    { prompt: 'P1 held?', askedAt: at('2026-11-24'), text: NAMED },
    { prompt: 'P1 held?', provider: 'anthropic', askedAt: at('2026-11-24'), text: LOST },
    { prompt: 'P2 lost?', askedAt: at('2026-11-24'), text: MISSING },
    { prompt: 'P3 volatile?', askedAt: at('2026-11-24'), text: NAMED },
    { prompt: 'P4 never named?', askedAt: at('2026-11-24'), text: null, error: 'timeout' },
  ]);
});
afterAll(() => app.close());

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });
const nulls = (n: number) => Array.from({ length: n }, () => null);

describe('GET /projects/:id/trends', () => {
  it('covers ten weeks ending with the latest week with data', async () => {
    const res = await get('/trends');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      period: 'week',
      start: '2026-11-23',
      end: '2026-11-29',
      periods: ['2026-11-02', '2026-11-09', '2026-11-23'],
    });
    expect(res.body.window).toEqual([
      '2026-09-21',
      '2026-09-28',
      '2026-10-05',
      '2026-10-12',
      '2026-10-19',
      '2026-10-26',
      '2026-11-02',
      '2026-11-09',
      '2026-11-16',
      '2026-11-23',
    ]);
  });

  it('gives the site shares per week, empty weeks included', async () => {
    const { shares } = (await get('/trends')).body;
    expect(shares).toHaveLength(10);
    expect(
      shares
        .slice(6)
        .map((s: { visibility: number | null; shareOfVoice: number | null; answers: number }) => [
          s.answers,
          s.visibility,
          s.shareOfVoice,
        ]),
    ).toEqual([
      [4, 75, 100],
      [3, 33.3, 33.3],
      [0, null, null],
      [5, 50, 66.7],
    ]);
    // Each week carries its band; a week without answers has none.
    for (const s of [shares[6], shares[7], shares[9]]) {
      expect(s.visibilityLow).toBeLessThanOrEqual(s.visibility);
      expect(s.visibilityHigh).toBeGreaterThanOrEqual(s.visibility);
      expect(s.shareOfVoiceLow).toBeLessThanOrEqual(s.shareOfVoice);
    }
    expect(shares[8]).toMatchObject({ visibilityLow: null, visibilityHigh: null, ownCitationRate: null });
  });

  it('lists every active prompt with its verdict per week and its stability', async () => {
    const { prompts, held, volatile, lost } = (await get('/trends')).body;
    const tail = (v: unknown[]) => v.slice(6);
    expect(
      prompts.map((p: { id: number; verdicts: unknown[]; stability: string | null }) => [
        p.id,
        tail(p.verdicts),
        p.stability,
      ]),
    ).toEqual([
      [ids['P1 held?'], ['named', 'named', null, 'named'], 'held'],
      [ids['P2 lost?'], ['named', 'lost', null, 'missing'], 'lost'],
      [ids['P3 volatile?'], ['missing', null, null, 'named'], 'volatile'],
      [ids['P4 never named?'], [null, 'missing', null, 'failed'], null],
      [ids['P6 never asked?'], nulls(4), null],
    ]);
    expect(prompts[0].verdicts.slice(0, 6)).toEqual(nulls(6));
    // One answer a week: neither the loss nor the held prompt's slide (2 of 2, then 1 of 2) is larger than its noise.
    expect(held).toEqual([{ id: ids['P1 held?'], text: 'P1 held?', real: false }]);
    expect(lost).toEqual([{ id: ids['P2 lost?'], text: 'P2 lost?', real: false }]);
    expect(volatile).toEqual([{ id: ids['P3 volatile?'], text: 'P3 volatile?', real: false }]);
    expect(prompts[1].stabilityChange).toEqual({
      named: 0,
      answered: 1,
      earlierNamed: 1,
      earlierAnswered: 2,
      pValue: 1,
      real: false,
    });
    expect(prompts[0].stabilityChange).toMatchObject({ named: 1, answered: 2, earlierNamed: 2, earlierAnswered: 2 });
    expect(prompts[3].stabilityChange).toBeNull();
  });

  it('compares the chosen week with the week before for prompts won and lost', async () => {
    expect((await get('/trends')).body.changes).toEqual({ won: [], lost: [] });
    const wb = (await get('/trends?start=2026-11-15')).body;
    expect(wb.start).toBe('2026-11-09');
    expect(wb.changes).toEqual({
      won: [],
      lost: [
        {
          id: ids['P2 lost?'],
          text: 'P2 lost?',
          verdict: 'lost',
          previousVerdict: 'named',
          named: 0,
          answered: 1,
          previousNamed: 1,
          previousAnswered: 1,
          pValue: 1,
          real: false,
        },
      ],
    });
    // As of Wb, P2 was named then lost: lost; P1 named twice: held.
    expect(wb.held.map((p: { id: number }) => p.id)).toEqual([ids['P1 held?']]);
    expect(wb.lost.map((p: { id: number }) => p.id)).toEqual([ids['P2 lost?']]);
  });

  it('gives shares per category over the prompts in it now', async () => {
    const { categories } = (await get('/trends')).body;
    const tail = (c: { shares: { visibility: number | null; shareOfVoice: number | null }[] }) =>
      c.shares.slice(6).map((s) => [s.visibility, s.shareOfVoice]);
    expect(categories.map((c: { name: string }) => c.name)).toEqual(['Email', 'Empty', 'Pricing']);
    expect(tail(categories[0])).toEqual([
      [50, 100],
      [0, 0],
      [null, null],
      [50, 100],
    ]);
    expect(tail(categories[1])).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [null, null],
    ]);
    expect(tail(categories[2])).toEqual([
      [100, 100],
      [50, 33.3],
      [null, null],
      [33.3, 50],
    ]);
    const last = categories[2].shares[9];
    expect(last.visibilityLow).toBeLessThan(33.3);
    expect(last.visibilityHigh).toBeGreaterThan(33.3);
    expect(categories[1].shares[9]).toMatchObject({ visibilityLow: null, shareOfVoiceHigh: null });
  });

  it('reads months: one month with data makes every named prompt volatile', async () => {
    const res = (await get('/trends?period=month')).body;
    expect(res).toMatchObject({ start: '2026-11-01', periods: ['2026-11-01'] });
    expect(res.window[0]).toBe('2026-02-01');
    expect(res.prompts.map((p: { verdicts: unknown[] }) => p.verdicts[9])).toEqual([
      'named',
      'named',
      'named',
      'missing',
      null,
    ]);
    expect(res.held).toEqual([]);
    expect(res.volatile.map((p: { id: number }) => p.id)).toEqual([
      ids['P1 held?'],
      ids['P2 lost?'],
      ids['P3 volatile?'],
    ]);
    expect(res.shares[9]).toMatchObject({ answers: 12, answered: 11, mentioned: 6, visibility: 54.5 });
  });

  it('carries the events dated inside the window, first to last day, oldest first (variant B)', async () => {
    expect((await get('/trends')).body.events).toEqual([]);
    // The window is the ten weeks from 2026-09-21 to the week of 2026-11-23, which ends on 11-29.
    const add = (title: string, date: string) =>
      app.request('POST', `/projects/${siteId}/events`, {
        key: ws.keys.member,
        body: { title, date, type: 'campaign' },
      });
    for (const [title, date] of [
      ['Last day', '2026-11-29'],
      ['After', '2026-11-30'],
      ['First day', '2026-09-21'],
      ['Before', '2026-09-20'],
    ] as const) {
      expect((await add(title, date)).status).toBe(200);
    }
    const { events } = (await get('/trends')).body;
    expect(events.map((e: { title: string; date: string }) => [e.title, e.date])).toEqual([
      ['First day', '2026-09-21'],
      ['Last day', '2026-11-29'],
    ]);
    expect(events[0]).toEqual({
      id: expect.any(Number),
      title: 'First day',
      date: '2026-09-21',
      type: 'campaign',
      note: null,
    });
    // A month window reaches further back: February to November.
    const months = (await get('/trends?period=month')).body.events.map((e: { title: string }) => e.title);
    expect(months).toEqual(['Before', 'First day', 'Last day', 'After']);
  });

  it('answers 422 for a bad period', async () => {
    const res = await get('/trends?period=fortnight');
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields)).toEqual(['period']);
  });
});

describe('variants', () => {
  it('B alone: trends carry events, the report has no scope', async () => {
    const b = await startTestApp({ variant: 'B' });
    try {
      const w = await seedOrg(b.ctx);
      const site = await b.request('POST', `/orgs/${w.orgId}/projects`, {
        key: w.keys.admin,
        body: { name: 'Acme', url: 'acme.com' },
      });
      await seedAnswers(b.ctx, w.orgId, site.body.project.id, [{ prompt: 'Best CRM?', text: NAMED }]);
      const trends = await b.request('GET', `/projects/${site.body.project.id}/trends`, { key: w.keys.viewer });
      expect(trends.body.events).toEqual([]);
      const report = await b.request('GET', `/projects/${site.body.project.id}/report`, { key: w.keys.viewer });
      expect(report.body.report.current).toMatchObject({ answers: 1, visibility: 100 });
      expect(report.body.report).not.toHaveProperty('scope');
    } finally {
      await b.close();
    }
  });
});
