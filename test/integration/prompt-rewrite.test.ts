import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questionFrom } from '../../src/domain/prompts/rewrite.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Workspace;
let siteId: number;

async function rawPrompt(text: string) {
  return app.ctx.db.insertInto('prompts').values({ siteId, text, status: 'draft', raw: true }).returning('id').executeTakeFirstOrThrow();
}

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true });
  ws = await seedWorkspace(app.ctx, { balanceUsd: 5 });
  siteId = (await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: { name: 'Acme', url: 'acme.com' } })).body.project.id;
});
afterAll(() => app.close());

describe('POST /prompts/rewrite', () => {
  it('turns raw queries into questions through an assistant, without charging', async () => {
    const a = await rawPrompt('best crm for startups');
    const b = await rawPrompt('hubspot vs salesforce');
    const res = await app.request('POST', `/projects/${siteId}/prompts/rewrite`, { key: ws.keys.admin });
    expect(res.status).toBe(200);
    expect(res.body.rewrite).toMatchObject({ state: 'queued', pending: 2, jobId: expect.stringMatching(/^rewrite-/) });
    await expect
      .poll(async () => (await app.ctx.db.selectFrom('prompts').select('raw').where('id', 'in', [a.id, b.id]).execute()).every((p) => !p.raw), { timeout: 15_000 })
      .toBe(true);
    const texts = await app.ctx.db.selectFrom('prompts').select('text').where('id', 'in', [a.id, b.id]).orderBy('id').execute();
    expect(texts.map((t) => t.text)).toEqual(['What are the best crm for startups?', 'Which is better: hubspot vs salesforce?']);
    const simRequests = await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json();
    expect(JSON.stringify(simRequests)).toContain('Rewrite this search query');
    const org = await app.ctx.db.selectFrom('orgs').select('balanceMicros').where('id', '=', ws.orgId).executeTakeFirstOrThrow();
    expect(org.balanceMicros).toBe(5_000_000);
  });

  it('needs admin', async () => {
    expect((await app.request('POST', `/projects/${siteId}/prompts/rewrite`, { key: ws.keys.member })).status).toBe(403);
  });

  it('answers 400 about the balance when it is zero', async () => {
    const broke = await seedWorkspace(app.ctx, { balanceUsd: 0 });
    const site = await app.request('POST', `/orgs/${broke.orgId}/projects`, { key: broke.keys.admin, body: { name: 'B', url: 'broke.com' } });
    const res = await app.request('POST', `/projects/${site.body.project.id}/prompts/rewrite`, { key: broke.keys.admin });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/balance/);
  });

  it('allows 10 calls an hour per site, then 429 with Retry-After', async () => {
    const busy = (await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: { name: 'Busy', url: 'busy.com' } })).body.project.id;
    for (let i = 0; i < 10; i++) expect((await app.request('POST', `/projects/${busy}/prompts/rewrite`, { key: ws.keys.admin })).status).toBe(200);
    const res = await app.request('POST', `/projects/${busy}/prompts/rewrite`, { key: ws.keys.admin });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('questionFrom', () => {
  it.each([
    ['What is X?', 'What is X?'],
    ['"Which CRM is best for startups"', 'Which CRM is best for startups?'],
    ['\n\n**How do I pick a CRM?**\nmore', 'How do I pick a CRM?'],
    ['', null],
    ['ok', null],
  ])('%j -> %j', (reply, expected) => {
    expect(questionFrom(reply)).toBe(expected);
  });
});
