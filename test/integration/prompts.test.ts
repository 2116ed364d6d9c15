import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_KEYS } from '../../src/assistants/catalog.ts';
import { fixedClock } from '../../src/clock.ts';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { PLAN_LIMITS } from '../../src/domain/orgs/plans.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;
const clock = fixedClock('2026-11-26T10:00:00Z'); // a Thursday

beforeAll(async () => {
  app = await startTestApp({ clock });
  ws = await seedOrg(app.ctx, { plan: 'pro' });
  await setOrgLimits(app.ctx, ws.orgId, { sites: 100, promptsPerSite: 10_000 });
});
afterAll(() => app.close());

let siteCounter = 0;
async function newSite(org: Org = ws): Promise<number> {
  siteCounter++;
  const site = await createSite(
    app.ctx,
    { orgId: org.orgId, userId: org.ownerId },
    { name: `Site ${siteCounter}`, url: `site-${org.orgId}-${siteCounter}.com` },
  );
  return site.id;
}

const member = () => ws.keys.member;
const post = (path: string, body: unknown, key = member()) => app.request('POST', path, { key, body });
const get = (path: string, key = ws.keys.viewer) => app.request('GET', path, { key });

async function addPrompt(siteId: number, body: Record<string, unknown>) {
  const res = await post(`/projects/${siteId}/prompts`, body);
  expect(res.status, res.text).toBe(200);
  return res.body.prompt as { id: number; text: string; categories: string[] };
}

describe('POST /projects/:id/prompts', () => {
  it('adds a prompt with the defaults and the full prompt shape', async () => {
    const siteId = await newSite();
    const res = await post(`/projects/${siteId}/prompts`, { text: '  Which help desk is best for startups?  ' });
    expect(res.status).toBe(200);
    expect(res.body.prompt).toEqual({
      id: expect.any(Number),
      text: 'Which help desk is best for startups?',
      categories: [],
      intent: 'informational',
      funnel: 'awareness',
      status: 'active',
      personaId: null,
      raw: false,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('creates categories on the fly and reuses existing ones ignoring case', async () => {
    const siteId = await newSite();
    const first = await addPrompt(siteId, {
      text: 'Best CRM for agencies?',
      categories: ['Sales', 'Agencies', 'sales'],
    });
    expect(first.categories).toEqual(['Agencies', 'Sales']);
    const second = await addPrompt(siteId, {
      text: 'Cheapest CRM?',
      category: 'SALES',
      intent: 'commercial',
      funnel: 'decision',
      status: 'paused',
    });
    expect(second).toMatchObject({ categories: ['Sales'], intent: 'commercial', funnel: 'decision', status: 'paused' });
    const cats = await get(`/projects/${siteId}/categories`);
    expect(cats.body.categories.map((c: { name: string; promptCount: number }) => [c.name, c.promptCount])).toEqual([
      ['Agencies', 1],
      ['Sales', 2],
    ]);
  });

  it('answers 409 for a text already tracked, compared trimmed and ignoring case', async () => {
    const siteId = await newSite();
    await addPrompt(siteId, { text: 'Is Acme any good?' });
    const dup = await post(`/projects/${siteId}/prompts`, { text: '  is acme ANY good?' });
    expect(dup.status).toBe(409);
    expect(dup.body).toEqual({ error: expect.stringMatching(/already tracked/), fields: { text: 'already tracked' } });
    // Another site may track the same text.
    const other = await newSite();
    expect((await post(`/projects/${other}/prompts`, { text: 'Is Acme any good?' })).status).toBe(200);
  });

  it('answers 422 naming each wrong field', async () => {
    const siteId = await newSite();
    const res = await post(`/projects/${siteId}/prompts`, {
      text: 'ab',
      categories: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'],
      intent: 'curious',
      funnel: 'late',
      status: 'on',
      personaId: 'x',
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({
      text: 'text needs 3 to 500 characters',
      categories: 'at most 8 categories per prompt',
      intent: expect.stringMatching(/informational, navigational, commercial, transactional/),
      funnel: expect.stringMatching(/awareness, consideration, decision/),
      status: expect.stringMatching(/draft, active, paused/),
      personaId: 'personaId must be a number',
    });
    const long = await post(`/projects/${siteId}/prompts`, { text: 'x'.repeat(501) });
    expect(long.body.fields).toEqual({ text: 'text needs 3 to 500 characters' });
    const missing = await post(`/projects/${siteId}/prompts`, {});
    expect(missing.body.fields).toEqual({ text: 'text must be a string' });
    const both = await post(`/projects/${siteId}/prompts`, { text: 'Which one?', category: 'A', categories: ['B'] });
    expect(both.body.fields).toEqual({ category: 'send category or categories, not both' });
    const nul = await post(`/projects/${siteId}/prompts`, { text: 'Which\u0000 one?' });
    expect(nul.body.fields).toEqual({ text: 'text cannot contain NUL characters' });
    const separator = await post(`/projects/${siteId}/prompts`, { text: 'Which one?', categories: ['A;B'] });
    expect(separator.body.fields).toEqual({ 'categories.0': expect.stringMatching(/cannot contain ; or \|/) });
  });

  it('answers 422 for a persona of another site and sets one of this site', async () => {
    const siteId = await newSite();
    const otherSite = await newSite();
    const persona = await post(`/projects/${otherSite}/personas`, { name: 'Buyer', context: 'I buy things' });
    const res = await post(`/projects/${siteId}/prompts`, { text: 'Which one?', personaId: persona.body.persona.id });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ personaId: expect.stringMatching(/no persona with id/) });
    const own = await post(`/projects/${siteId}/personas`, { name: 'Buyer', context: 'I buy things' });
    const ok = await addPrompt(siteId, { text: 'Which one?', personaId: own.body.persona.id });
    expect(ok).toMatchObject({ personaId: own.body.persona.id });
  });

  it('answers 400 with the limit in the message past the prompts-per-site limit, counting every status', async () => {
    const small = await seedOrg(app.ctx, { plan: 'free' });
    await setOrgLimits(app.ctx, small.orgId, { promptsPerSite: 3 });
    const siteId = await newSite(small);
    for (const [i, status] of (['active', 'draft', 'paused'] as const).entries()) {
      const res = await post(
        `/projects/${siteId}/prompts`,
        { text: `Question number ${i}?`, status },
        small.keys.member,
      );
      expect(res.status).toBe(200);
    }
    const over = await post(`/projects/${siteId}/prompts`, { text: 'One too many?' }, small.keys.member);
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ error: expect.stringMatching(/limit of 3 prompts per site/), fields: null });
  });

  it('holds the limit under concurrent creates', async () => {
    const small = await seedOrg(app.ctx, { plan: 'free' });
    await setOrgLimits(app.ctx, small.orgId, { promptsPerSite: 5 });
    const siteId = await newSite(small);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        post(`/projects/${siteId}/prompts`, { text: `Concurrent question ${i}?` }, small.keys.member),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(7);
  });

  it('answers one 200 and one 409 for the same text sent concurrently', async () => {
    const siteId = await newSite();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => post(`/projects/${siteId}/prompts`, { text: 'Same text at once?' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
  });

  it('refuses viewers (403) and unknown sites (404)', async () => {
    const siteId = await newSite();
    expect((await post(`/projects/${siteId}/prompts`, { text: 'Which one?' }, ws.keys.viewer)).status).toBe(403);
    expect((await post(`/projects/999999/prompts`, { text: 'Which one?' })).status).toBe(404);
  });
});

describe('PATCH /projects/:id/prompts/:promptId', () => {
  it('changes only the fields sent; categories replaces the list; personaId null clears', async () => {
    const siteId = await newSite();
    const persona = await post(`/projects/${siteId}/personas`, { name: 'CTO', context: 'I pick the stack' });
    const prompt = await addPrompt(siteId, {
      text: 'Which CRM has the best API?',
      categories: ['A', 'B'],
      personaId: persona.body.persona.id,
    });
    clock.advance(1000);
    const res = await app.request('PATCH', `/projects/${siteId}/prompts/${prompt.id}`, {
      key: member(),
      body: { status: 'paused', categories: ['C'] },
    });
    expect(res.status).toBe(200);
    expect(res.body.prompt).toMatchObject({
      text: 'Which CRM has the best API?',
      status: 'paused',
      categories: ['C'],
      intent: 'informational',
      personaId: persona.body.persona.id,
    });
    const cleared = await app.request('PATCH', `/projects/${siteId}/prompts/${prompt.id}`, {
      key: member(),
      body: { personaId: null, category: 'D', intent: 'transactional' },
    });
    expect(cleared.body.prompt).toMatchObject({
      personaId: null,
      categories: ['D'],
      intent: 'transactional',
      status: 'paused',
    });
    const emptied = await app.request('PATCH', `/projects/${siteId}/prompts/${prompt.id}`, {
      key: member(),
      body: { categories: [] },
    });
    expect(emptied.body.prompt.categories).toEqual([]);
    const nothing = await app.request('PATCH', `/projects/${siteId}/prompts/${prompt.id}`, { key: member(), body: {} });
    expect(nothing.status).toBe(200);
    expect(nothing.body.prompt.updatedAt).toBe(emptied.body.prompt.updatedAt);
  });

  it('changes the text, refusing one another prompt has (409), and an edited raw prompt is no longer raw', async () => {
    const siteId = await newSite();
    const imported = await post(`/projects/${siteId}/prompts/import`, { contents: 'keyword\nbest crm for agencies\n' });
    expect(imported.body.created).toBe(1);
    const list = await get(`/projects/${siteId}/prompts`);
    const raw = list.body.prompts[0];
    expect(raw.raw).toBe(true);
    await addPrompt(siteId, { text: 'Which CRM suits agencies?' });
    const dup = await app.request('PATCH', `/projects/${siteId}/prompts/${raw.id}`, {
      key: member(),
      body: { text: 'which crm suits agencies?' },
    });
    expect(dup.status).toBe(409);
    const ok = await app.request('PATCH', `/projects/${siteId}/prompts/${raw.id}`, {
      key: member(),
      body: { text: 'What is the best CRM for agencies?' },
    });
    expect(ok.body.prompt).toMatchObject({ text: 'What is the best CRM for agencies?', raw: false });
    const sameCase = await app.request('PATCH', `/projects/${siteId}/prompts/${raw.id}`, {
      key: member(),
      body: { text: 'WHAT is the best CRM for agencies?' },
    });
    expect(sameCase.status).toBe(200);
  });

  it('answers 404 for a prompt of another site and 422 for bad fields', async () => {
    const siteId = await newSite();
    const other = await newSite();
    const prompt = await addPrompt(other, { text: 'Whose prompt is this?' });
    const res = await app.request('PATCH', `/projects/${siteId}/prompts/${prompt.id}`, {
      key: member(),
      body: { status: 'paused' },
    });
    expect(res.status).toBe(404);
    const bad = await app.request('PATCH', `/projects/${other}/prompts/${prompt.id}`, {
      key: member(),
      body: { status: 'sleeping', text: '' },
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.fields).sort()).toEqual(['status', 'text']);
  });
});

describe('GET /projects/:id/prompts', () => {
  let siteId: number;
  beforeAll(async () => {
    siteId = await newSite();
    const rows: Record<string, unknown>[] = [
      { text: 'Which help desk has 100% uptime?', categories: ['Reliability'], intent: 'commercial' },
      { text: 'Best help desk for startups?', categories: ['Startups', 'Pricing'] },
      { text: 'How much does a help desk cost?', categories: ['pricing'], status: 'draft' },
      { text: 'Alternatives to Zendesk?', status: 'paused', intent: 'navigational' },
      { text: 'help_desk with SLA rules?' },
    ];
    for (const row of rows) {
      await addPrompt(siteId, row);
      clock.advance(60_000);
    }
  });

  const texts = (res: { body: { prompts: { text: string }[] } }) => res.body.prompts.map((p) => p.text);

  it('lists newest first with the envelope, period and start', async () => {
    const res = await get(`/projects/${siteId}/prompts`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, page: 1, perPage: 20, sort: 'created', dir: 'desc', period: 'week' });
    expect(texts(res)[0]).toBe('help_desk with SLA rules?');
    // Never asked: no verdicts, ten empty squares ending with the current week (the clock's; the site has no answers).
    const weeks = [
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
    expect(res.body.prompts[0]).toMatchObject({
      latest: Object.fromEntries(PROVIDER_KEYS.map((k) => [k, null])),
      history: weeks.map((start) => ({ start, verdict: null })),
      stability: null,
      raw: false,
    });
  });

  it('echoes the period parameters, start as the period’s first day', async () => {
    expect((await get(`/projects/${siteId}/prompts?period=month&start=2026-02-17`)).body).toMatchObject({
      period: 'month',
      start: '2026-02-01',
    });
    expect((await get(`/projects/${siteId}/prompts?period=quarter&start=2026-08-31`)).body).toMatchObject({
      period: 'quarter',
      start: '2026-07-01',
    });
    expect((await get(`/projects/${siteId}/prompts?period=week&start=2026-03-01`)).body).toMatchObject({
      start: '2026-02-23',
    });
    expect((await get(`/projects/${siteId}/prompts?period=day&start=2026-03-01`)).body).toMatchObject({
      start: '2026-03-01',
    });
    // Default: the period holding today (the clock says Thursday 26 November 2026 or a little later).
    expect((await get(`/projects/${siteId}/prompts`)).body.start).toBe('2026-11-23');
  });

  it('filters by text (wildcards taken literally), category ignoring case, status and intent', async () => {
    expect(texts(await get(`/projects/${siteId}/prompts?q=HELP%20DESK`))).toHaveLength(3);
    expect(texts(await get(`/projects/${siteId}/prompts?q=100%25`))).toEqual(['Which help desk has 100% uptime?']);
    expect(texts(await get(`/projects/${siteId}/prompts?q=help_desk`))).toEqual(['help_desk with SLA rules?']);
    expect(texts(await get(`/projects/${siteId}/prompts?category=PRICING&sort=text`))).toEqual([
      'Best help desk for startups?',
      'How much does a help desk cost?',
    ]);
    expect(texts(await get(`/projects/${siteId}/prompts?status=paused`))).toEqual(['Alternatives to Zendesk?']);
    expect(texts(await get(`/projects/${siteId}/prompts?intent=commercial`))).toEqual([
      'Which help desk has 100% uptime?',
    ]);
    expect((await get(`/projects/${siteId}/prompts?category=Nothing`)).body).toMatchObject({ prompts: [], total: 0 });
    expect((await get(`/projects/${siteId}/prompts?q=`)).body.total).toBe(5);
  });

  it('sorts by created, text and category in both directions', async () => {
    expect(texts(await get(`/projects/${siteId}/prompts?sort=created&dir=asc`))[0]).toBe(
      'Which help desk has 100% uptime?',
    );
    expect(texts(await get(`/projects/${siteId}/prompts?sort=text`))).toEqual([
      'Alternatives to Zendesk?',
      'Best help desk for startups?',
      'help_desk with SLA rules?',
      'How much does a help desk cost?',
      'Which help desk has 100% uptime?',
    ]);
    expect(texts(await get(`/projects/${siteId}/prompts?sort=text&dir=desc`))[0]).toBe(
      'Which help desk has 100% uptime?',
    );
    // By first category name; uncategorised last either way.
    expect(texts(await get(`/projects/${siteId}/prompts?sort=category`))).toEqual([
      'Best help desk for startups?',
      'How much does a help desk cost?',
      'Which help desk has 100% uptime?',
      'Alternatives to Zendesk?',
      'help_desk with SLA rules?',
    ]);
    expect(texts(await get(`/projects/${siteId}/prompts?sort=category&dir=desc`)).slice(0, 3)).toEqual([
      'Which help desk has 100% uptime?',
      'How much does a help desk cost?',
      'Best help desk for startups?',
    ]);
  });

  it('pages without overlap', async () => {
    const one = await get(`/projects/${siteId}/prompts?perPage=5&page=1&sort=text`);
    expect(one.body).toMatchObject({ total: 5, perPage: 5 });
    const two = await get(`/projects/${siteId}/prompts?perPage=5&page=2&sort=text`);
    expect(two.body).toMatchObject({ prompts: [], total: 5, page: 2 });
  });

  it.each([
    ['perPage=4', 'perPage'],
    ['perPage=201', 'perPage'],
    ['perPage=abc', 'perPage'],
    ['page=0', 'page'],
    ['sort=random', 'sort'],
    ['dir=up', 'dir'],
    ['status=sleeping', 'status'],
    ['intent=curious', 'intent'],
    ['period=year', 'period'],
    ['start=2026-02-30', 'start'],
    ['start=yesterday', 'start'],
    ['verdict=won', 'verdict'],
    ['competitor=a%00b', 'competitor'],
    ['stability=firm', 'stability'],
    ['scanned=maybe', 'scanned'],
    ['q=a%00b', 'q'],
  ])('answers 422 for %s', async (query, field) => {
    const res = await get(`/projects/${siteId}/prompts?${query}`);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields)).toEqual([field]);
  });

  it('answers 404 for a site of another workspace', async () => {
    const other = await seedOrg(app.ctx);
    const theirs = await newSite(other);
    expect((await get(`/projects/${theirs}/prompts`)).status).toBe(404);
  });
});

describe('GET /projects/:id/prompts/export.csv', () => {
  it('streams the filtered list as CSV with quoting, categories joined by ;', async () => {
    const siteId = await newSite();
    const persona = await post(`/projects/${siteId}/personas`, { name: 'Ops lead', context: 'I run support' });
    await addPrompt(siteId, {
      text: 'Which help desk, "really", is best?',
      categories: ['B', 'A'],
      personaId: persona.body.persona.id,
      intent: 'commercial',
    });
    await addPrompt(siteId, { text: 'Paused one?', status: 'paused' });
    const res = await app.request('GET', `/projects/${siteId}/prompts/export.csv?status=active`, {
      key: ws.keys.viewer,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(
      /^attachment; filename="prompts-site-\d+-\d+\.com-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const lines = res.text.split('\r\n');
    expect(lines[0]).toBe(
      `text,categories,intent,funnel,status,persona,createdAt,${PROVIDER_KEYS.map((k) => `latest_${k}`).join(',')},stability,${PROVIDER_KEYS.map((k) => `named_${k},samples_${k}`).join(',')},consistency`,
    );
    // Never asked: every verdict, the stability and the consistency columns are empty.
    expect(lines[1]).toMatch(
      /^"Which help desk, ""really"", is best\?",A;B,commercial,awareness,active,Ops lead,\d{4}-\d{2}-\d{2}T[\d:.]+Z,{20}$/,
    );
    expect(lines.slice(2)).toEqual(['']);
  });

  it('exports thousands of prompts in batches, in the list order, and reads back through import', async () => {
    const siteId = await newSite();
    const csv = [
      'text,category',
      ...Array.from({ length: 1200 }, (_, i) => `Question ${String(i).padStart(4, '0')}?,Cat ${i % 3}`),
    ].join('\n');
    const imported = await post(`/projects/${siteId}/prompts/import`, { contents: csv });
    expect(imported.body.created).toBe(1200);
    const res = await app.request('GET', `/projects/${siteId}/prompts/export.csv?sort=text&dir=desc&q=question`, {
      key: ws.keys.viewer,
    });
    const lines = res.text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1201);
    expect(lines[1]).toMatch(/^Question 1199\?,Cat 2,informational,awareness,draft,,/);
    expect(lines[1200]).toMatch(/^Question 0000\?,Cat 0,/);
    const again = await post(`/projects/${siteId}/prompts/import`, { contents: res.text, dryRun: true });
    expect(again.body).toMatchObject({ rows: 1200, created: 0, updated: 0, skipped: 1200, errors: [] });
  });

  it('answers 422 naming a bad result filter', async () => {
    const siteId = await newSite();
    const res = await get(`/projects/${siteId}/prompts/export.csv?verdict=won`);
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ verdict: 'verdict must be one of named, lost, cited, missing, failed' });
  });
});

describe('POST /projects/:id/prompts/bulk', () => {
  async function seedBulk() {
    const siteId = await newSite();
    const prompts = [];
    for (let i = 0; i < 4; i++)
      prompts.push(await addPrompt(siteId, { text: `Bulk question ${i}?`, categories: ['Old', `Own ${i}`] }));
    return { siteId, ids: prompts.map((p) => p.id) };
  }
  const list = async (siteId: number) =>
    (await get(`/projects/${siteId}/prompts?sort=text&dir=asc`)).body.prompts as {
      id: number;
      status: string;
      categories: string[];
      personaId: number | null;
    }[];

  it('sets the status of many prompts', async () => {
    const { siteId, ids } = await seedBulk();
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids: ids.slice(0, 3), status: 'paused' });
    expect(res.body).toEqual({ action: 'status', updated: 3, deleted: 0, categoriesCreated: [] });
    expect((await list(siteId)).map((p) => p.status)).toEqual(['paused', 'paused', 'paused', 'active']);
  });

  it('sets one category (created if new), and null removes every category', async () => {
    const { siteId, ids } = await seedBulk();
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids: ids.slice(0, 2), category: 'Fresh' });
    expect(res.body).toEqual({ action: 'category', updated: 2, deleted: 0, categoriesCreated: ['Fresh'] });
    const again = await post(`/projects/${siteId}/prompts/bulk`, { ids: ids.slice(1, 3), category: 'fresh' });
    expect(again.body.categoriesCreated).toEqual([]);
    expect((await list(siteId)).map((p) => p.categories)).toEqual([['Fresh'], ['Fresh'], ['Fresh'], ['Old', 'Own 3']]);
    await post(`/projects/${siteId}/prompts/bulk`, { ids: [ids[3]], category: null });
    expect((await list(siteId))[3]?.categories).toEqual([]);
  });

  it('sets and clears a persona', async () => {
    const { siteId, ids } = await seedBulk();
    const persona = await post(`/projects/${siteId}/personas`, { name: 'Bulk buyer' });
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids, personaId: persona.body.persona.id });
    expect(res.body.updated).toBe(4);
    expect((await list(siteId)).every((p) => p.personaId === persona.body.persona.id)).toBe(true);
    await post(`/projects/${siteId}/prompts/bulk`, { ids, personaId: null });
    expect((await list(siteId)).every((p) => p.personaId === null)).toBe(true);
    const foreign = await post(`/projects/${siteId}/prompts/bulk`, { ids, personaId: 999_999 });
    expect(foreign.status).toBe(422);
  });

  it('deletes prompts, and ids repeated count once', async () => {
    const { siteId, ids } = await seedBulk();
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids: [ids[0], ids[0], ids[1]], delete: true });
    expect(res.body).toEqual({ action: 'delete', updated: 0, deleted: 2, categoriesCreated: [] });
    expect((await list(siteId)).map((p) => p.id)).toEqual(ids.slice(2));
  });

  it('answers 404 naming ids that are not this site’s, changing nothing', async () => {
    const { siteId, ids } = await seedBulk();
    const other = await seedBulk();
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids: [...ids, other.ids[0], 987_654], delete: true });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatch(new RegExp(`${other.ids[0]}, 987654.*nothing was changed`));
    expect(await list(siteId)).toHaveLength(4);
    expect(await list(other.siteId)).toHaveLength(4);
  });

  it.each([
    ['no action', { ids: [1] }, ['body']],
    ['two actions', { ids: [1], status: 'paused', delete: true }, ['delete']],
    ['category and persona', { ids: [1], category: 'A', personaId: null }, ['personaId']],
    ['no ids', { ids: [], status: 'paused' }, ['ids']],
    ['5001 ids', { ids: Array.from({ length: 5001 }, (_, i) => i + 1), status: 'paused' }, ['ids']],
    ['a negative id', { ids: [1, -2], status: 'paused' }, ['ids.1']],
    ['an id past 32 bits', { ids: [3_000_000_000], status: 'paused' }, ['ids.0']],
    ['a persona id past 32 bits', { ids: [1], personaId: 3_000_000_000 }, ['personaId']],
    ['delete false', { ids: [1], delete: false }, ['delete']],
    ['a bad status', { ids: [1], status: 'asleep' }, ['status']],
  ])('answers 422 for %s', async (_name, body, fields) => {
    const siteId = await newSite();
    const res = await post(`/projects/${siteId}/prompts/bulk`, body);
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields)).toEqual(fields);
  });

  it('handles 5000 ids in one call', async () => {
    const small = await seedOrg(app.ctx, { plan: 'enterprise' });
    const siteId = await newSite(small);
    const csv = ['text', ...Array.from({ length: 5000 }, (_, i) => `Many prompt ${i}?`)].join('\n');
    expect((await post(`/projects/${siteId}/prompts/import`, { contents: csv }, small.keys.member)).body.created).toBe(
      5000,
    );
    const all = await app.request('GET', `/projects/${siteId}/prompts/export.csv`, { key: small.keys.viewer });
    expect(all.text.trimEnd().split('\r\n')).toHaveLength(5001);
    const ids = (await app.ctx.db.selectFrom('prompts').select('id').where('siteId', '=', siteId).execute()).map(
      (r) => r.id,
    );
    const res = await post(`/projects/${siteId}/prompts/bulk`, { ids, category: 'Everything' }, small.keys.member);
    expect(res.body).toMatchObject({ updated: 5000 });
    const cats = await get(`/projects/${siteId}/categories`, small.keys.viewer);
    expect(cats.body.categories).toEqual([expect.objectContaining({ name: 'Everything', promptCount: 5000 })]);
    const gone = await post(`/projects/${siteId}/prompts/bulk`, { ids, delete: true }, small.keys.member);
    expect(gone.body.deleted).toBe(5000);
  }, 120_000);
});

describe('GET /projects/:id/prompts/rewrite/pending', () => {
  it('counts prompts imported as search queries, and says how many rewrites the workspace has left today', async () => {
    const siteId = await newSite();
    expect((await get(`/projects/${siteId}/prompts/rewrite/pending`)).body).toEqual({
      pending: 0,
      rewritesLeftToday: PLAN_LIMITS.pro.rewritesPerDay,
    });
    await post(`/projects/${siteId}/prompts/import`, {
      contents: 'keyword\nbest crm\ncrm pricing\nwhich crm is best\nIs HubSpot free\n',
    });
    await addPrompt(siteId, { text: 'crm for dentists' });
    expect((await get(`/projects/${siteId}/prompts/rewrite/pending`)).body).toEqual({
      pending: 2,
      rewritesLeftToday: PLAN_LIMITS.pro.rewritesPerDay,
    });
  });
});
