import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx, { plan: 'pro' });
  await setOrgLimits(app.ctx, ws.orgId, { sites: 100 });
});
afterAll(() => app.close());

let n = 0;
async function newSite(org: Org = ws): Promise<number> {
  n++;
  return (
    await createSite(
      app.ctx,
      { orgId: org.orgId, userId: org.ownerId },
      { name: `Import ${n}`, url: `import-${org.orgId}-${n}.com` },
    )
  ).id;
}

const importCsv = (siteId: number, body: Record<string, unknown>, key = ws.keys.member) =>
  app.request('POST', `/projects/${siteId}/prompts/import`, { key, body });
type Listed = {
  id: number;
  text: string;
  categories: string[];
  intent: string;
  funnel: string;
  status: string;
  raw: boolean;
};
const listAll = async (siteId: number): Promise<Listed[]> =>
  (await app.request('GET', `/projects/${siteId}/prompts?sort=text&perPage=200`, { key: ws.keys.viewer })).body.prompts;

describe('POST /projects/:id/prompts/import', () => {
  it('imports rows by column name, drafts by default, and marks search queries raw', async () => {
    const siteId = await newSite();
    const contents = [
      'Keyword,Categories,Intent,Funnel,Notes',
      'best help desk for startups,Help desk;Startups,commercial,consideration,ignored',
      '"Which help desk, if any, integrates with Slack?",Help desk|Integrations,,,',
      'How do I set up SLAs,,,,',
    ].join('\n');
    const res = await importCsv(siteId, { contents });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      rows: 3,
      created: 3,
      updated: 0,
      skipped: 0,
      categories: ['Help desk', 'Startups', 'Integrations'],
      errors: [],
      errorsOmitted: 0,
      dryRun: false,
    });
    const prompts = await listAll(siteId);
    expect(prompts.map((p) => [p.text, p.categories, p.intent, p.funnel, p.status, p.raw])).toEqual([
      ['best help desk for startups', ['Help desk', 'Startups'], 'commercial', 'consideration', 'draft', true],
      ['How do I set up SLAs', [], 'informational', 'awareness', 'draft', false],
      [
        'Which help desk, if any, integrates with Slack?',
        ['Help desk', 'Integrations'],
        'informational',
        'awareness',
        'draft',
        false,
      ],
    ]);
  });

  it('takes the status of new prompts from the body unless the row names one', async () => {
    const siteId = await newSite();
    const res = await importCsv(siteId, {
      contents: 'prompt,status\nWhat is an SLA?,\nWhat is a ticket?,paused\n',
      status: 'active',
    });
    expect(res.body.created).toBe(2);
    expect((await listAll(siteId)).map((p) => [p.text, p.status])).toEqual([
      ['What is a ticket?', 'paused'],
      ['What is an SLA?', 'active'],
    ]);
  });

  it('updates an existing text when another column changes it, else skips it; the file never downgrades status by default', async () => {
    const siteId = await newSite();
    const first = await app.request('POST', `/projects/${siteId}/prompts`, {
      key: ws.keys.member,
      body: { text: 'What is a help desk?', categories: ['Basics'] },
    });
    expect(first.body.prompt.status).toBe('active');
    await app.request('POST', `/projects/${siteId}/prompts`, {
      key: ws.keys.member,
      body: { text: 'Why use a help desk?', categories: ['Basics'], intent: 'commercial' },
    });
    const contents = [
      'question,category,intent,status',
      'WHAT is a help desk?  ,basics,,', // same text (case, spaces), same category (case): unchanged
      'why use a help desk?,Basics;Value,commercial,', // category list changes
      'What does a help desk cost?,Pricing,,',
    ].join('\n');
    const res = await importCsv(siteId, { contents });
    expect(res.body).toMatchObject({
      rows: 3,
      created: 1,
      updated: 1,
      skipped: 1,
      categories: ['Value', 'Pricing'],
      errors: [],
    });
    const prompts = await listAll(siteId);
    expect(prompts.map((p) => [p.text, p.categories, p.status])).toEqual([
      ['What does a help desk cost?', ['Pricing'], 'draft'],
      ['What is a help desk?', ['Basics'], 'active'],
      ['Why use a help desk?', ['Basics', 'Value'], 'active'],
    ]);
    const status = await importCsv(siteId, {
      contents: 'text,status,funnel\nWhat is a help desk?,paused,\nWhy use a help desk?,,decision\n',
    });
    expect(status.body).toMatchObject({ created: 0, updated: 2, skipped: 0 });
    expect((await listAll(siteId)).map((p) => [p.status, p.funnel])).toEqual([
      ['draft', 'awareness'],
      ['paused', 'awareness'],
      ['active', 'decision'],
    ]);
  });

  it('skips invalid rows and repeats with their file line numbers (header = line 1)', async () => {
    const siteId = await newSite();
    const contents = [
      'text,category,intent', // 1
      'Which CRM is best?,Sales,', // 2
      '', // 3 (blank, not a row)
      'ab,,', // 4
      '"Which CRM', // 5
      'is cheapest?",Sales,curious', // 6
      'which crm is best?,,', // 7
      ',Sales,', // 8
      `Which CRM has the most categories?,${'a;b;c;d;e;f;g;h;i'},`, // 9
    ].join('\r\n');
    const res = await importCsv(siteId, { contents });
    expect(res.body).toEqual({
      rows: 6,
      created: 1,
      updated: 0,
      skipped: 5,
      categories: ['Sales'],
      errors: [
        { line: 4, reason: 'text needs 3 to 500 characters (has 2)' },
        { line: 5, reason: expect.stringMatching(/^intent "curious" is not one of/) },
        { line: 7, reason: 'same text as line 2' },
        { line: 8, reason: 'text is empty' },
        { line: 9, reason: 'at most 8 categories per prompt (has 9)' },
      ],
      errorsOmitted: 0,
      dryRun: false,
    });
  });

  it('answers the same counts on a dry run and writes nothing', async () => {
    const siteId = await newSite();
    await app.request('POST', `/projects/${siteId}/prompts`, {
      key: ws.keys.member,
      body: { text: 'Existing question?', categories: ['Old'] },
    });
    const contents = 'text,category\nExisting question?,New\nFresh question?,Old;Newer\nab,\n';
    const dry = await importCsv(siteId, { contents, dryRun: true });
    expect(dry.body).toEqual({
      rows: 3,
      created: 1,
      updated: 1,
      skipped: 1,
      categories: ['New', 'Newer'],
      errors: [{ line: 4, reason: expect.any(String) }],
      errorsOmitted: 0,
      dryRun: true,
    });
    expect((await listAll(siteId)).map((p) => [p.text, p.categories])).toEqual([['Existing question?', ['Old']]]);
    expect((await app.request('GET', `/projects/${siteId}/categories`, { key: ws.keys.viewer })).body.total).toBe(1);
    const real = await importCsv(siteId, { contents });
    expect({ ...real.body, dryRun: true }).toEqual(dry.body);
  });

  it('skips rows past the prompts-per-site limit with that reason, still applying updates', async () => {
    const small = await seedOrg(app.ctx, { plan: 'free' });
    await setOrgLimits(app.ctx, small.orgId, { promptsPerSite: 3 });
    const siteId = await newSite(small);
    await app.request('POST', `/projects/${siteId}/prompts`, {
      key: small.keys.member,
      body: { text: 'First question?' },
    });
    const contents =
      'text,status\nFirst question?,paused\nSecond question?,\nThird question?,\nFourth question?,\nFifth question?,\n';
    const res = await importCsv(siteId, { contents }, small.keys.member);
    expect(res.body).toMatchObject({
      rows: 5,
      created: 2,
      updated: 1,
      skipped: 2,
      errors: [
        { line: 5, reason: expect.stringMatching(/limit of 3 prompts per site/) },
        { line: 6, reason: expect.stringMatching(/limit of 3 prompts per site/) },
      ],
    });
    const dry = await importCsv(siteId, { contents: 'text\nSixth question?\n', dryRun: true }, small.keys.member);
    expect(dry.body).toMatchObject({ created: 0, skipped: 1 });
  });

  it('keeps the limit when imports run concurrently', async () => {
    const small = await seedOrg(app.ctx, { plan: 'free' });
    await setOrgLimits(app.ctx, small.orgId, { promptsPerSite: 10 });
    const siteId = await newSite(small);
    const files = Array.from({ length: 4 }, (_, f) =>
      ['text', ...Array.from({ length: 6 }, (_, i) => `File ${f} question ${i}?`)].join('\n'),
    );
    const results = await Promise.all(files.map((contents) => importCsv(siteId, { contents }, small.keys.member)));
    expect(results.reduce((sum, r) => sum + r.body.created, 0)).toBe(10);
    const count = await app.ctx.db
      .selectFrom('prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(10);
  });

  it('lists at most 1000 reasons and counts the rest', async () => {
    const siteId = await newSite();
    const contents = ['text', ...Array.from({ length: 1500 }, () => 'x')].join('\n');
    const res = await importCsv(siteId, { contents });
    expect(res.body).toMatchObject({ rows: 1500, created: 0, skipped: 1500, errorsOmitted: 500 });
    expect(res.body.errors).toHaveLength(1000);
    expect(res.body.errors[999]).toEqual({ line: 1001, reason: expect.any(String) });
  });

  it('reads semicolon-separated files and a byte order mark', async () => {
    const siteId = await newSite();
    const res = await importCsv(siteId, { contents: '\uFEFFtext;category\r\nWhich one is best?;A|B\r\n' });
    expect(res.body).toMatchObject({ created: 1, categories: ['A', 'B'] });
  });

  it('answers 422 for a file without a text column, empty contents, too much text, a bad status', async () => {
    const siteId = await newSite();
    const noText = await importCsv(siteId, { contents: 'title,tags\nfoo,bar\n' });
    expect(noText.status).toBe(422);
    expect(noText.body.fields).toEqual({ contents: expect.stringMatching(/no text column/) });
    const empty = await importCsv(siteId, { contents: '' });
    expect(empty.body.fields).toEqual({ contents: 'contents is empty' });
    const blank = await importCsv(siteId, { contents: '\n\n' });
    expect(blank.body.fields).toEqual({ contents: expect.stringMatching(/no header row/) });
    const big = await importCsv(siteId, { contents: `text\n${'a'.repeat(2_000_000)}` });
    expect(big.status).toBe(422);
    expect(big.body.fields).toEqual({ contents: 'contents must be at most 2,000,000 characters' });
    const nul = await importCsv(siteId, { contents: 'text\nfoo\u0000bar\n' });
    expect(nul.body.fields).toEqual({ contents: 'contents cannot contain NUL characters' });
    const bad = await importCsv(siteId, { contents: 'text\nfoo bar\n', status: 'on', dryRun: 'yes' });
    expect(Object.keys(bad.body.fields).sort()).toEqual(['dryRun', 'status']);
  });

  it('takes a 2,000,000-character file of about 20,000 prompts', async () => {
    const big = await seedOrg(app.ctx, { plan: 'enterprise' });
    await setOrgLimits(app.ctx, big.orgId, { promptsPerSite: 25_000 });
    const siteId = await newSite(big);
    const lines = ['text,category,intent'];
    let size = lines[0]!.length + 1;
    for (let i = 0; size < 2_000_000 - 120; i++) {
      const line = `"Which help desk platform is the best choice for team ${i}, with ${'x'.repeat(i % 40)}?",Group ${i % 25};Shared,commercial`;
      lines.push(line);
      size += line.length + 1;
    }
    const contents = lines.join('\n');
    expect(contents.length).toBeLessThanOrEqual(2_000_000);
    // Timing is bench/prompt-import's job; here the whole file must go through in one request.
    const res = await importCsv(siteId, { contents }, big.keys.member);
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    expect(res.body.created).toBe(lines.length - 1);
    expect(res.body.created).toBeGreaterThan(15_000);
    expect(res.body.categories).toHaveLength(26);
  }, 120_000);

  it('is refused to viewers (403)', async () => {
    const siteId = await newSite();
    expect((await importCsv(siteId, { contents: 'text\nfoo bar\n' }, ws.keys.viewer)).status).toBe(403);
  });
});
