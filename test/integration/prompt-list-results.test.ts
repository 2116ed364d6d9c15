import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS } from '../../src/assistants/catalog.ts';
import { fixedClock } from '../../src/clock.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * The prompt list's scan results (`latest`, `history`, `stability`), result
 * filters and sorts, and the CSV export's result columns, through HTTP over a
 * small scripted data set. Every expectation is worked out by hand below.
 *
 * The clock says Wednesday 2 December 2026 (week of 11-30, no answers), so the
 * default window ends with the latest week with data, 11-23:
 *   09-21 09-28 10-05 10-12 10-19 | 10-26 11-02 11-09 11-16 11-23
 *
 *   prompt                 answers (week: assistant verdict [rank])                  latest                              weekly squares (from 10-05)         stability
 *   P1 startups (Sales)     10-26 oa named1; 11-09 oa named2;                         oa cited, an named, ge failed       10-05 -, 10-26 named, 11-09 named,  held
 *                           11-24 oa cited1, an named2 (Globex), ge failed            mean rank 1.5, asked 11-24 09:00    11-23 cited
 *   P2 email (Email)        11-03 oa named1 (Initech); 11-24 oa lost (Globex),        oa lost, pe missing                 11-02 named, 11-23 lost              lost
 *                           pe missing                                                no rank, asked 11-24 10:00
 *   P3 migrate (Sales,      11-04 oa missing; 11-17 oa named3 (Globex, Initech)       oa named, rank 3, asked 11-17       11-02 missing, 11-16 named           volatile
 *      Email)
 *   P4 worth it (paused)    11-25 oa lost (Initech), ao missing                        oa lost, ao missing, asked 11-25   11-23 lost                          null
 *   P5 cheapest (Pricing)   never asked                                                all null, never                     all null                            null
 *   P6 agencies (draft)     11-23 oa failed                                            oa failed, no rank, asked 11-23     11-23 failed (no data)              null
 *   P7 small team (Sales)   10-06 oa named1                                            oa named, rank 1, asked 10-06       10-05 named                         volatile
 *
 * Months (window 2026-02..2026-11): P1 Oct named, Nov cited (held); P2, P3
 * Nov named (volatile: one month with data); P4 Nov lost; P6 Nov failed; P7
 * Oct named (volatile).
 */

const clock = fixedClock('2026-12-02T10:00:00Z');
let app: TestApp;
let ws: Org;
let siteId: number;
let emptySiteId: number;
const id: Record<string, number> = {};

const NAMED = 'Acme is great.';
const SECOND = 'Globex beats Acme.';
const THIRD = 'Globex, Initech and Acme.';
const LOST = 'Globex is fine.';
const LOST_INITECH = 'Initech is cheaper.';
const MISSING = 'Nothing relevant here.';
const NAMED_WITH_INITECH = 'Acme and Initech are both good.';

const P1 = 'Which CRM is best for startups?';
const P2 = 'Which CRM has the best email tools?';
const P3 = 'How do I migrate my CRM data?';
const P4 = 'Is Acme CRM worth the price?';
const P5 = 'What is the cheapest CRM?';
const P6 = 'Which CRM do agencies use?';
const P7 = 'Best CRM for a small team?';

const at = (day: string, time = '09:00') => `${day}T${time}:00Z`;
const none = Object.fromEntries(PROVIDER_KEYS.map((k) => [k, null])) as Record<string, string | null>;
const WEEKS = [
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
];
/** Squares of a window: every start null except those given. */
const squares = (starts: string[], verdicts: Record<string, string> = {}) =>
  starts.map((start) => ({ start, verdict: verdicts[start] ?? null }));

beforeAll(async () => {
  app = await startTestApp({ clock });
  ws = await seedOrg(app.ctx);
  siteId = (await addAcmeSite(app, ws)).id;
  const empty = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Umbrella watch', url: 'quiet.io', competitors: [{ name: 'Umbrella', domain: 'umbrella.com' }] },
  });
  emptySiteId = empty.body.project.id;
  const prompts: [string, Record<string, unknown>][] = [
    [P1, { categories: ['Sales'] }],
    [P2, { categories: ['Email'] }],
    [P3, { categories: ['Sales', 'Email'] }],
    [P4, { status: 'paused' }],
    [P5, { categories: ['Pricing'] }],
    [P6, { status: 'draft' }],
    [P7, { categories: ['Sales'] }],
  ];
  for (const [text, body] of prompts) {
    const res = await app.request('POST', `/projects/${siteId}/prompts`, {
      key: ws.keys.member,
      body: { text, ...body },
    });
    expect(res.status, res.text).toBe(200);
    id[text] = res.body.prompt.id;
    clock.advance(60_000);
  }
  // One import per scan day, oldest first, as scans would store them.
  const days: Parameters<typeof seedAnswers>[3][] = [
    [{ prompt: P7, askedAt: at('2026-10-06'), text: NAMED }],
    [{ prompt: P1, askedAt: at('2026-10-27'), text: NAMED }],
    [
      { prompt: P2, askedAt: at('2026-11-03'), text: NAMED_WITH_INITECH },
      { prompt: P3, askedAt: at('2026-11-04'), text: MISSING },
    ],
    [{ prompt: P1, askedAt: at('2026-11-10'), text: SECOND }],
    [{ prompt: P3, askedAt: at('2026-11-17'), text: THIRD }],
    [
      { prompt: P6, askedAt: at('2026-11-23'), text: null, error: 'timeout' },
      {
        prompt: P1,
        askedAt: at('2026-11-24'),
        text: NAMED,
        citations: [{ url: 'https://www.acme.com/crm', title: 'Acme CRM' }],
      },
      { prompt: P1, provider: 'anthropic', askedAt: at('2026-11-24'), text: SECOND },
      { prompt: P1, provider: 'gemini', askedAt: at('2026-11-24'), text: null, error: 'upstream 500' },
      { prompt: P2, askedAt: at('2026-11-24', '10:00'), text: LOST },
      { prompt: P2, provider: 'perplexity', askedAt: at('2026-11-24', '10:00'), text: MISSING },
      { prompt: P4, askedAt: at('2026-11-25'), text: LOST_INITECH },
      { prompt: P4, provider: 'google-ai-overview', askedAt: at('2026-11-25'), text: MISSING },
    ],
  ];
  for (const rows of days) await seedAnswers(app.ctx, ws.orgId, siteId, rows);
});
afterAll(() => app.close());

const get = (path: string, site = siteId) => app.request('GET', `/projects/${site}${path}`, { key: ws.keys.viewer });
const texts = (res: { body: { prompts: { text: string }[] } }) => res.body.prompts.map((p) => p.text);
async function list(query: string): Promise<string[]> {
  const res = await get(`/prompts?${query}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.total).toBe(res.body.prompts.length);
  return texts(res);
}

describe('GET /projects/:id/prompts: result columns', () => {
  it('gives each prompt its latest verdict per assistant, every key present, null when never asked', async () => {
    const res = await get('/prompts?sort=text');
    expect(res.status).toBe(200);
    const byText = Object.fromEntries(res.body.prompts.map((p: { text: string }) => [p.text, p]));
    expect(byText[P1].latest).toEqual({ ...none, openai: 'cited', anthropic: 'named', gemini: 'failed' });
    expect(byText[P2].latest).toEqual({ ...none, openai: 'lost', perplexity: 'missing' });
    expect(byText[P3].latest).toEqual({ ...none, openai: 'named' });
    expect(byText[P4].latest).toEqual({ ...none, openai: 'lost', 'google-ai-overview': 'missing' });
    expect(byText[P5].latest).toEqual(none);
    expect(byText[P6].latest).toEqual({ ...none, openai: 'failed' });
    expect(byText[P7].latest).toEqual({ ...none, openai: 'named' });
    for (const p of res.body.prompts) expect(Object.keys(p.latest)).toEqual([...PROVIDER_KEYS]);
    // The prompt's own fields stay.
    expect(byText[P4]).toMatchObject({
      id: id[P4],
      text: P4,
      status: 'paused',
      categories: [],
      raw: false,
      personaId: null,
    });
  });

  it('ends the default window with the latest week with data and gives ten weekly squares, empty weeks null', async () => {
    const res = await get('/prompts?sort=created&dir=asc');
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-23', sort: 'created', dir: 'asc' });
    expect(
      res.body.prompts.map((p: { text: string; history: unknown; stability: unknown }) => [
        p.text,
        p.history,
        p.stability,
      ]),
    ).toEqual([
      [P1, squares(WEEKS, { '2026-10-26': 'named', '2026-11-09': 'named', '2026-11-23': 'cited' }), 'held'],
      [P2, squares(WEEKS, { '2026-11-02': 'named', '2026-11-23': 'lost' }), 'lost'],
      [P3, squares(WEEKS, { '2026-11-02': 'missing', '2026-11-16': 'named' }), 'volatile'],
      [P4, squares(WEEKS, { '2026-11-23': 'lost' }), null],
      [P5, squares(WEEKS), null],
      // A week whose answers all failed shows failed, and is no data for stability.
      [P6, squares(WEEKS, { '2026-11-23': 'failed' }), null],
      [P7, squares(WEEKS, { '2026-10-05': 'named' }), 'volatile'],
    ]);
  });

  it('normalises an explicit start inside a week to the week’s first day and ends the window there', async () => {
    const res = await get('/prompts?sort=created&dir=asc&start=2026-11-12');
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-09' });
    const window = [
      '2026-09-07',
      '2026-09-14',
      '2026-09-21',
      '2026-09-28',
      '2026-10-05',
      '2026-10-12',
      '2026-10-19',
      '2026-10-26',
      '2026-11-02',
      '2026-11-09',
    ];
    expect(res.body.prompts.map((p: { history: unknown; stability: unknown }) => [p.history, p.stability])).toEqual([
      [squares(window, { '2026-10-26': 'named', '2026-11-09': 'named' }), 'held'],
      [squares(window, { '2026-11-02': 'named' }), 'volatile'],
      [squares(window, { '2026-11-02': 'missing' }), null],
      [squares(window), null],
      [squares(window), null],
      [squares(window), null],
      [squares(window, { '2026-10-05': 'named' }), 'volatile'],
    ]);
    // `latest` is the latest answers whatever the window.
    expect(res.body.prompts[0].latest).toEqual({ ...none, openai: 'cited', anthropic: 'named', gemini: 'failed' });
  });

  it('reads months: squares per month, a month’s verdict the best of its answers', async () => {
    const res = await get('/prompts?sort=created&dir=asc&period=month');
    expect(res.body).toMatchObject({ period: 'month', start: '2026-11-01' });
    const months = [
      '2026-02-01',
      '2026-03-01',
      '2026-04-01',
      '2026-05-01',
      '2026-06-01',
      '2026-07-01',
      '2026-08-01',
      '2026-09-01',
      '2026-10-01',
      '2026-11-01',
    ];
    expect(res.body.prompts.map((p: { history: unknown; stability: unknown }) => [p.history, p.stability])).toEqual([
      [squares(months, { '2026-10-01': 'named', '2026-11-01': 'cited' }), 'held'],
      // Named on 11-03, lost on 11-24: November is named, one month with data is volatile.
      [squares(months, { '2026-11-01': 'named' }), 'volatile'],
      [squares(months, { '2026-11-01': 'named' }), 'volatile'],
      [squares(months, { '2026-11-01': 'lost' }), null],
      [squares(months), null],
      [squares(months, { '2026-11-01': 'failed' }), null],
      [squares(months, { '2026-10-01': 'named' }), 'volatile'],
    ]);
    // An explicit start in the middle of a month: the window ends with that month.
    const october = await get('/prompts?sort=created&dir=asc&period=month&start=2026-10-15');
    expect(october.body).toMatchObject({ period: 'month', start: '2026-10-01' });
    expect(october.body.prompts[0].history).toEqual(
      squares(['2026-01-01', ...months.slice(0, 9)], { '2026-10-01': 'named' }),
    );
    expect(october.body.prompts.map((p: { stability: unknown }) => p.stability)).toEqual([
      'volatile',
      null,
      null,
      null,
      null,
      null,
      'volatile',
    ]);
  });

  it('ends the window with the current period for a site without answers', async () => {
    await app.request('POST', `/projects/${emptySiteId}/prompts`, {
      key: ws.keys.member,
      body: { text: 'Anyone there?' },
    });
    const res = await get('/prompts', emptySiteId);
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-30', total: 1 });
    expect(res.body.prompts[0]).toMatchObject({ latest: none, stability: null });
    expect(res.body.prompts[0].history.at(-1)).toEqual({ start: '2026-11-30', verdict: null });
    expect((await get('/prompts?period=quarter', emptySiteId)).body.start).toBe('2026-10-01');
  });
});

describe('GET /projects/:id/prompts: result filters', () => {
  it.each([
    ['named', [P1, P3, P7]],
    ['lost', [P2, P4]],
    ['cited', [P1]],
    ['missing', [P2, P4]],
    ['failed', [P1, P6]],
  ])('verdict=%s keeps prompts one of whose assistants’ latest answers has it', async (verdict, expected) => {
    expect(await list(`verdict=${verdict}&sort=created&dir=asc`)).toEqual(expected);
  });

  it('competitor keeps prompts whose latest answers name that tracked competitor, ignoring case', async () => {
    expect(await list('competitor=Globex&sort=created&dir=asc')).toEqual([P1, P2, P3]);
    expect(await list('competitor=gLoBeX&sort=created&dir=asc')).toEqual([P1, P2, P3]);
    // P2 named Initech on 11-03, but its latest answers do not.
    expect(await list('competitor=INITECH&sort=created&dir=asc')).toEqual([P3, P4]);
  });

  it('competitor with an unknown name, or another site’s competitor, is an empty list, not an error', async () => {
    for (const name of ['Hooli', 'Umbrella', 'Glob']) {
      const res = await get(`/prompts?competitor=${name}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ prompts: [], total: 0 });
    }
  });

  it('stability reads the list’s window', async () => {
    expect(await list('stability=held&sort=created&dir=asc')).toEqual([P1]);
    expect(await list('stability=volatile&sort=created&dir=asc')).toEqual([P3, P7]);
    expect(await list('stability=lost&sort=created&dir=asc')).toEqual([P2]);
    expect(await list('stability=volatile&period=month&sort=created&dir=asc')).toEqual([P2, P3, P7]);
    expect(await list('stability=lost&period=month')).toEqual([]);
    expect(await list('stability=held&start=2026-11-12')).toEqual([P1]);
    expect(await list('stability=volatile&start=2026-11-12&sort=created&dir=asc')).toEqual([P2, P7]);
    // Every listed prompt carries the stability it was filtered by.
    const res = await get('/prompts?stability=volatile&period=month');
    expect(res.body.prompts.map((p: { stability: string }) => p.stability)).toEqual([
      'volatile',
      'volatile',
      'volatile',
    ]);
  });

  it('scanned is whether the prompt was ever asked, failed calls included', async () => {
    expect(await list('scanned=yes&sort=created&dir=asc')).toEqual([P1, P2, P3, P4, P6, P7]);
    expect(await list('scanned=never')).toEqual([P5]);
  });

  it('combines with q, category, status and intent, and with each other', async () => {
    expect(await list('verdict=named&category=EMAIL')).toEqual([P3]);
    expect(await list('verdict=lost&status=paused')).toEqual([P4]);
    expect(await list('verdict=lost&status=active')).toEqual([P2]);
    expect(await list('q=EMAIL&competitor=globex')).toEqual([P2]);
    expect(await list('q=crm&scanned=never')).toEqual([P5]);
    expect(await list('scanned=yes&status=draft')).toEqual([P6]);
    expect(await list('competitor=globex&stability=held')).toEqual([P1]);
    expect(await list('verdict=cited&competitor=initech')).toEqual([]);
    expect(await list('category=sales&stability=volatile&sort=created&dir=asc')).toEqual([P3, P7]);
    expect(await list('verdict=named&intent=commercial')).toEqual([]);
  });

  it('treats empty and blank parameters as no filter', async () => {
    const res = await get('/prompts?verdict=&competitor=%20%20&stability=&scanned=');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(7);
  });
});

describe('GET /projects/:id/prompts: result sorts', () => {
  it('sorts by mean latest rank, best first by default, prompts without a rank last in both directions', async () => {
    const asc = await get('/prompts?sort=rank');
    expect(asc.body).toMatchObject({ sort: 'rank', dir: 'asc' });
    // P7 1, P1 (1 + 2) / 2 = 1.5, P3 3; then by id: P2, P4 (no rank), P5 (never asked), P6 (failed).
    expect(texts(asc)).toEqual([P7, P1, P3, P2, P4, P5, P6]);
    expect(texts(await get('/prompts?sort=rank&dir=desc'))).toEqual([P3, P1, P7, P6, P5, P4, P2]);
  });

  it('sorts by last asked, newest first by default, never asked last in both directions', async () => {
    const desc = await get('/prompts?sort=scanned');
    expect(desc.body).toMatchObject({ sort: 'scanned', dir: 'desc' });
    expect(texts(desc)).toEqual([P4, P2, P1, P6, P3, P7, P5]);
    expect(texts(await get('/prompts?sort=scanned&dir=asc'))).toEqual([P7, P3, P6, P1, P2, P4, P5]);
  });

  it.each([
    ['rank', 'asc'],
    ['rank', 'desc'],
    ['scanned', 'asc'],
    ['scanned', 'desc'],
  ])('pages sort=%s dir=%s without overlap, in the order of the whole list', async (sort, dir) => {
    const whole = texts(await get(`/prompts?sort=${sort}&dir=${dir}`));
    const one = await get(`/prompts?sort=${sort}&dir=${dir}&perPage=5&page=1`);
    const two = await get(`/prompts?sort=${sort}&dir=${dir}&perPage=5&page=2`);
    expect(one.body).toMatchObject({ total: 7, page: 1, perPage: 5 });
    expect(two.body).toMatchObject({ total: 7, page: 2, perPage: 5 });
    expect(texts(one)).toHaveLength(5);
    expect([...texts(one), ...texts(two)]).toEqual(whole);
    expect(new Set([...texts(one), ...texts(two)]).size).toBe(7);
  });

  it('sorts a filtered list and pages it', async () => {
    const res = await get('/prompts?scanned=yes&sort=rank&perPage=5&page=2');
    expect(res.body).toMatchObject({ total: 6, page: 2 });
    expect(texts(res)).toEqual([P6]);
  });
});

describe('validation of the result parameters', () => {
  it.each([
    ['verdict=won', { verdict: 'verdict must be one of named, lost, cited, missing, failed' }],
    ['stability=firm', { stability: 'stability must be one of held, volatile, lost' }],
    ['scanned=maybe', { scanned: 'scanned must be yes or never' }],
    ['consistency=often', { consistency: 'consistency must be one of all, some, none, split' }],
    ['sort=best', { sort: 'sort must be one of created, text, category, rank, scanned, consistency' }],
    ['competitor=a%00b', { competitor: 'competitor cannot contain NUL characters' }],
    ['competitor=a&competitor=b', { competitor: 'competitor must be given once, as text' }],
    [`competitor=${'x'.repeat(201)}`, { competitor: 'competitor must be at most 200 characters' }],
    ['period=year', { period: 'period must be one of day, week, month, quarter' }],
    ['start=2026-02-30', { start: 'start is not a calendar date' }],
    ['start=yesterday', { start: 'start must be a date, YYYY-MM-DD' }],
    [
      'verdict=won&scanned=no&dir=up',
      { verdict: expect.any(String), scanned: expect.any(String), dir: 'dir must be asc or desc' },
    ],
  ])('answers 422 for %s, naming each field, in the list and the export', async (query, fields) => {
    for (const path of ['/prompts', '/prompts/export.csv']) {
      const res = await get(`${path}?${query}`);
      expect(res.status, path).toBe(422);
      expect(res.body).toEqual({ error: 'Some query parameters are not valid', fields });
    }
  });

  it('documents the parameters in OpenAPI', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const params = (path: string) =>
      Object.fromEntries(
        doc.paths[path].get.parameters.map((p: { name: string; schema: unknown }) => [p.name, p.schema]),
      );
    const listParams = params('/projects/{id}/prompts');
    expect(listParams.verdict).toMatchObject({ enum: ['named', 'lost', 'cited', 'missing', 'failed'] });
    expect(listParams.sort).toMatchObject({ enum: ['created', 'text', 'category', 'rank', 'scanned', 'consistency'] });
    expect(listParams.consistency).toMatchObject({ enum: ['all', 'some', 'none', 'split'] });
    expect(Object.keys(listParams)).toEqual(
      expect.arrayContaining([
        'competitor',
        'stability',
        'scanned',
        'consistency',
        'period',
        'start',
        'page',
        'perPage',
      ]),
    );
    const exportParams = params('/projects/{id}/prompts/export.csv');
    expect(Object.keys(exportParams)).toEqual(
      expect.arrayContaining(['verdict', 'competitor', 'stability', 'scanned', 'sort', 'dir', 'period', 'start']),
    );
    expect(Object.keys(exportParams)).not.toContain('page');
  });
});

describe('GET /projects/:id/prompts/export.csv', () => {
  const HEADER = [
    'text',
    'categories',
    'intent',
    'funnel',
    'status',
    'persona',
    'createdAt',
    ...PROVIDER_KEYS.map((k) => `latest_${k}`),
    'stability',
    ...PROVIDER_KEYS.flatMap((k) => [`named_${k}`, `samples_${k}`]),
    'consistency',
  ];
  /** The consistency columns: per assistant in provider order [named, samples] or absent (never asked), then the percent. */
  const consistency = (named: Partial<Record<string, [number, number]>>, share: string) =>
    [...PROVIDER_KEYS.flatMap((k) => (named[k] ? named[k].map(String) : ['', ''])), share].join(',');
  async function exported(query: string): Promise<Record<string, string>[]> {
    const res = await get(`/prompts/export.csv?${query}`);
    expect(res.status, res.text).toBe(200);
    expect(res.text.split('\r\n')[0]).toBe(HEADER.join(','));
    return parse(res.text, { columns: true }) as Record<string, string>[];
  }
  /** The result columns of a record: latest verdicts in provider order, then stability. */
  const results = (r: Record<string, string>) => [...PROVIDER_KEYS.map((k) => r[`latest_${k}`]), r.stability];

  it('adds the latest verdict per assistant and stability after the prompt’s own columns', async () => {
    const res = await get('/prompts/export.csv?verdict=named&sort=rank');
    const lines = res.text.split('\r\n');
    const createdAt = (line = '') => line.split(',')[6] ?? '';
    // One sample per assistant: "1 of 1" where the latest answer named or cited the brand, "0 of 1" where it failed (not answered, so not in the percent).
    expect(lines[1]).toBe(
      `${P7},Sales,informational,awareness,active,,${createdAt(lines[1])},named,,,,,,volatile,${consistency({ openai: [1, 1] }, '100')}`,
    );
    expect(lines[2]).toBe(
      `${P1},Sales,informational,awareness,active,,${createdAt(lines[2])},cited,named,,failed,,,held,${consistency({ openai: [1, 1], anthropic: [1, 1], gemini: [0, 1] }, '100')}`,
    );
    expect(lines[3]).toBe(
      `${P3},Email;Sales,informational,awareness,active,,${createdAt(lines[3])},named,,,,,,volatile,${consistency({ openai: [1, 1] }, '100')}`,
    );
    expect(createdAt(lines[1])).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
    expect(lines.slice(4)).toEqual(['']);
  });

  it('takes the list’s result filters and sorts', async () => {
    expect((await exported('competitor=INITECH')).map((r) => [r.text, ...results(r)])).toEqual([
      [P4, 'lost', '', '', '', 'missing', '', ''],
      [P3, 'named', '', '', '', '', '', 'volatile'],
    ]);
    expect((await exported('scanned=never')).map((r) => [r.text, r.categories, ...results(r)])).toEqual([
      [P5, 'Pricing', '', '', '', '', '', '', ''],
    ]);
    expect((await exported('sort=scanned')).map((r) => r.text)).toEqual([P4, P2, P1, P6, P3, P7, P5]);
    expect((await exported('sort=rank&dir=desc&perPage=5')).map((r) => r.text)).toEqual([P3, P1, P7, P6, P5, P4, P2]);
    expect((await exported('verdict=failed&status=draft')).map((r) => [r.text, r.status, r.latest_openai])).toEqual([
      [P6, 'draft', 'failed'],
    ]);
  });

  it('reads stability over the period parameters’ window', async () => {
    expect((await exported('period=month&stability=volatile&sort=text')).map((r) => [r.text, r.stability])).toEqual([
      [P7, 'volatile'],
      [P3, 'volatile'],
      [P2, 'volatile'],
    ]);
    expect((await exported('sort=created&dir=asc')).map((r) => r.stability)).toEqual([
      'held',
      'lost',
      'volatile',
      '',
      '',
      '',
      'volatile',
    ]);
    expect((await exported('sort=created&dir=asc&start=2026-11-12')).map((r) => r.stability)).toEqual([
      'held',
      'volatile',
      '',
      '',
      '',
      '',
      'volatile',
    ]);
  });

  it('prefixes cells a spreadsheet would run as a formula with a single quote', async () => {
    const formulaSite = (
      await app.request('POST', `/orgs/${ws.orgId}/projects`, {
        key: ws.keys.admin,
        body: { name: 'Formulas', url: 'formulas.com' },
      })
    ).body.project.id;
    const persona = await app.request('POST', `/projects/${formulaSite}/personas`, {
      key: ws.keys.member,
      body: { name: '+Ops lead' },
    });
    const add = (body: Record<string, unknown>) =>
      app.request('POST', `/projects/${formulaSite}/prompts`, { key: ws.keys.member, body });
    await add({ text: '=HYPERLINK("http://evil.test","CRM")?', categories: ['=cmd'] });
    await add({ text: '+1 CRM for sales?', personaId: persona.body.persona.id });
    await add({ text: '-5 reasons to leave a CRM?' });
    await add({ text: '@channel which CRM?' });
    await add({ text: '\uFF1D1+1 full-width CRM?' });
    await add({ text: 'A plain CRM - no formula?', categories: ['-minus', 'Sales'] });
    // Text fields are trimmed on the way in; rows stored otherwise (older data, direct edits) are escaped all the same.
    await app.ctx.db
      .insertInto('prompts')
      .values([
        { siteId: formulaSite, text: '\tTabbed CRM?' },
        { siteId: formulaSite, text: '\rCarriage CRM?' },
      ])
      .execute();
    const res = await get('/prompts/export.csv?sort=created&dir=asc', formulaSite);
    expect(res.status).toBe(200);
    const lines = res.text.split('\r\n');
    expect(lines[1]).toMatch(/^"'=HYPERLINK\(""http:\/\/evil\.test"",""CRM""\)\?",'=cmd,/);
    expect(lines[2]).toMatch(/^'\+1 CRM for sales\?,,informational,awareness,active,'\+Ops lead,/);
    expect(lines[3]).toMatch(/^'-5 reasons to leave a CRM\?,,/);
    expect(lines[4]).toMatch(/^'@channel which CRM\?,,/);
    expect(lines[5]).toMatch(/^'\uFF1D1\+1 full-width CRM\?,,/);
    // Only a leading character counts; the first category decides the categories cell.
    expect(lines[6]).toMatch(/^A plain CRM - no formula\?,'-minus;Sales,/);
    expect(lines[7]).toMatch(/^'\tTabbed CRM\?,,/);
    expect(lines[8]).toMatch(/^"'\rCarriage CRM\?",,/);
    const rows = parse(res.text, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.text)).toEqual([
      '\'=HYPERLINK("http://evil.test","CRM")?',
      "'+1 CRM for sales?",
      "'-5 reasons to leave a CRM?",
      "'@channel which CRM?",
      "'\uFF1D1+1 full-width CRM?",
      'A plain CRM - no formula?',
      "'\tTabbed CRM?",
      "'\rCarriage CRM?",
    ]);
  });
});
