import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * /competitors/:competitorId read from its prepared statements: prompt lists
 * capped at 100 per group and ordered by text ignoring case, categories by
 * name ignoring case (an empty one included), every period kind giving the
 * same split when all answers fall in one week, a period without answers,
 * another site's competitor. Answers are all on Wednesday 2026-11-18.
 *
 * 103 prompts `Prompt 000`..`Prompt 102` (odd ones written `prompt ...`) name
 * Acme and Globex; `zeta brand` and `Eta brand` name Acme only; `Gamma rival`
 * names Globex only; `Failing one` failed; `Nobody here` names neither.
 */

let app: TestApp;
let ws: Org;
let siteId: number;
const comp: Record<string, number> = {};
let otherCompetitor: number;
const DAY = '2026-11-18T10:00:00Z';
const pad = (i: number) => String(i).padStart(3, '0');
const bothText = (i: number) => `${i % 2 ? 'prompt' : 'Prompt'} ${pad(i)}`;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
  const site = await addAcmeSite(app, ws);
  siteId = site.id;
  Object.assign(comp, site.competitors);
  const other = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Other', url: 'other.com', competitors: [{ name: 'Umbrella', domain: 'umbrella.com' }] },
  });
  otherCompetitor = other.body.project.competitors[0].id;
  for (const [text, categories] of [
    ['zeta brand', ['beta cat']],
    ['Gamma rival', ['Alpha cat', 'beta cat']],
    ['Eta brand', []],
  ] as const) {
    await app.request('POST', `/projects/${siteId}/prompts`, { key: ws.keys.member, body: { text, categories } });
  }
  await app.request('POST', `/projects/${siteId}/categories`, { key: ws.keys.member, body: { name: 'Empty' } });
  await seedAnswers(app.ctx, ws.orgId, siteId, [
    ...Array.from({ length: 103 }, (_, i) => ({
      prompt: bothText(i),
      askedAt: DAY,
      text: 'Acme and Globex are both options.',
    })),
    { prompt: 'zeta brand', askedAt: DAY, text: 'Acme is great.' },
    { prompt: 'Eta brand', askedAt: DAY, text: 'Acme is great.' },
    { prompt: 'Gamma rival', askedAt: DAY, text: 'Globex is fine.' },
    { prompt: 'Failing one', askedAt: DAY, text: null, error: 'timeout' },
    { prompt: 'Nobody here', askedAt: DAY, text: 'Nothing relevant here.' },
  ]);
});
afterAll(() => app.close());

const get = (path: string) => app.request('GET', `/projects/${siteId}${path}`, { key: ws.keys.viewer });
const texts = (list: { text: string }[]) => list.map((p) => p.text);

describe('GET /projects/:id/competitors/:competitorId, prompt split and categories', () => {
  it('lists up to 100 prompts per group by text ignoring case, with the whole count', async () => {
    const { prompts } = (await get(`/competitors/${comp.Globex}`)).body;
    expect(prompts.counts).toEqual({ both: 103, onlyBrand: 2, onlyCompetitor: 1 });
    expect(texts(prompts.both)).toEqual(Array.from({ length: 100 }, (_, i) => bothText(i)));
    expect(texts(prompts.onlyBrand)).toEqual(['Eta brand', 'zeta brand']);
    expect(texts(prompts.onlyCompetitor)).toEqual(['Gamma rival']);
    const initech = (await get(`/competitors/${comp.Initech}`)).body.prompts;
    expect(initech.counts).toEqual({ both: 0, onlyBrand: 105, onlyCompetitor: 0 });
    expect(initech.both).toEqual([]);
    expect(texts(initech.onlyBrand)).toEqual(['Eta brand', ...Array.from({ length: 99 }, (_, i) => bothText(i))]);
  });

  it('gives every category by name ignoring case, an empty one with zeros', async () => {
    const { categories } = (await get(`/competitors/${comp.Globex}`)).body;
    expect(
      categories.map((c: { name: string; answered: number; brand: unknown; competitor: unknown }) => [
        c.name,
        c.answered,
        c.brand,
        c.competitor,
      ]),
    ).toMatchObject([
      ['Alpha cat', 1, { mentioned: 0, visibility: 0 }, { mentioned: 1, visibility: 100 }],
      ['beta cat', 2, { mentioned: 1, visibility: 50 }, { mentioned: 1, visibility: 50 }],
      ['Empty', 0, { mentioned: 0, visibility: null }, { mentioned: 0, visibility: null }],
    ]);
  });

  it('gives the same split in every period kind holding the week, call after call', async () => {
    const week = (await get(`/competitors/${comp.Globex}`)).body;
    expect(week.current).toMatchObject({ answered: 107, both: 103, onlyBrand: 2, onlyCompetitor: 1 });
    // Past the five calls after which Postgres may switch a prepared statement to its generic plan.
    for (const [period, start] of [
      ['day', '2026-11-18'],
      ['week', '2026-11-16'],
      ['month', '2026-11-01'],
      ['quarter', '2026-10-01'],
    ]) {
      for (let i = 0; i < 8; i++) {
        const body = (await get(`/competitors/${comp.Globex}?period=${period}&start=2026-11-18`)).body;
        expect(body).toMatchObject({ period, start });
        expect({
          current: body.current,
          providers: body.providers,
          categories: body.categories,
          prompts: body.prompts,
          pages: body.pages,
        }).toEqual({
          current: week.current,
          providers: week.providers,
          categories: week.categories,
          prompts: week.prompts,
          pages: week.pages,
        });
      }
    }
  });

  it('answers a period without answers with zeros and empty lists', async () => {
    const body = (await get(`/competitors/${comp.Globex}?start=2025-01-06`)).body;
    expect(body).toMatchObject({ period: 'week', start: '2025-01-06', end: '2025-01-12', periods: ['2026-11-16'] });
    expect(body.current).toEqual({
      answered: 0,
      // No answers: every interval is null, like its share.
      brand: {
        mentioned: 0,
        visibility: null,
        cited: 0,
        shareOfVoice: null,
        visibilityLow: null,
        visibilityHigh: null,
        shareOfVoiceLow: null,
        shareOfVoiceHigh: null,
      },
      competitor: {
        mentioned: 0,
        visibility: null,
        cited: 0,
        shareOfVoice: null,
        visibilityLow: null,
        visibilityHigh: null,
        shareOfVoiceLow: null,
        shareOfVoiceHigh: null,
      },
      both: 0,
      brandAhead: 0,
      competitorAhead: 0,
      onlyBrand: 0,
      onlyCompetitor: 0,
    });
    expect(body.providers).toEqual([]);
    expect(body.prompts).toEqual({
      counts: { both: 0, onlyBrand: 0, onlyCompetitor: 0 },
      both: [],
      onlyBrand: [],
      onlyCompetitor: [],
    });
    expect(body.categories.map((c: { answered: number }) => c.answered)).toEqual([0, 0, 0]);
    expect(body.pages).toEqual([]);
  });

  it('answers 404 for another site’s competitor', async () => {
    const res = await get(`/competitors/${otherCompetitor}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: `No competitor with id ${otherCompetitor}`, fields: null });
  });
});

describe('GET /projects/:id/sentiment, answers filtered two ways', () => {
  it('filters by tone and engine together as by each', async () => {
    const all = (await get('/sentiment?answers=1&perPage=200')).body;
    for (const tone of ['positive', 'neutral', 'negative']) {
      const both = (await get(`/sentiment?answers=1&perPage=200&tone=${tone}&engine=openai`)).body;
      const expected = all.answers.filter(
        (a: { tone: string; provider: string }) => a.tone === tone && a.provider === 'openai',
      );
      expect(both.answers).toEqual(expected);
      expect(both.total).toBe(expected.length);
    }
    expect(all.total).toBe(all.answers.length);
    expect(all.answers.length).toBeGreaterThan(100);
  });
});
