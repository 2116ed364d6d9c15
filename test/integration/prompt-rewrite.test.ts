import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RewriteResult } from '../../src/domain/prompts/rewrite.ts';
import { questionFrom } from '../../src/domain/prompts/rewrite.ts';
import { takeRewrites } from '../../src/domain/prompts/rewrite-allowance.ts';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { PLAN_LIMITS } from '../../src/domain/orgs/plans.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;
let siteId: number;

async function rawPrompt(text: string) {
  return app.ctx.db
    .insertInto('prompts')
    .values({ siteId, text, status: 'draft', raw: true })
    .returning('id')
    .executeTakeFirstOrThrow();
}

beforeAll(async () => {
  app = await startTestApp({ workers: true, simulator: true });
  ws = await seedOrg(app.ctx, { balanceUsd: 5 });
  siteId = (
    await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Acme', url: 'acme.com' },
    })
  ).body.project.id;
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
      .poll(
        async () =>
          (await app.ctx.db.selectFrom('prompts').select('raw').where('id', 'in', [a.id, b.id]).execute()).every(
            (p) => !p.raw,
          ),
        { timeout: 15_000 },
      )
      .toBe(true);
    const texts = await app.ctx.db
      .selectFrom('prompts')
      .select('text')
      .where('id', 'in', [a.id, b.id])
      .orderBy('id')
      .execute();
    expect(texts.map((t) => t.text)).toEqual([
      'What are the best crm for startups?',
      'Which is better: hubspot vs salesforce?',
    ]);
    const simRequests = await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json();
    expect(JSON.stringify(simRequests)).toContain('Rewrite this search query');
    const org = await app.ctx.db
      .selectFrom('orgs')
      .select('balanceMicros')
      .where('id', '=', ws.orgId)
      .executeTakeFirstOrThrow();
    expect(org.balanceMicros).toBe(5_000_000);
  });

  it('needs admin', async () => {
    expect((await app.request('POST', `/projects/${siteId}/prompts/rewrite`, { key: ws.keys.member })).status).toBe(
      403,
    );
  });

  it('answers 400 about the balance when it is zero', async () => {
    const broke = await seedOrg(app.ctx, { balanceUsd: 0 });
    const site = await app.request('POST', `/orgs/${broke.orgId}/projects`, {
      key: broke.keys.admin,
      body: { name: 'B', url: 'broke.com' },
    });
    const res = await app.request('POST', `/projects/${site.body.project.id}/prompts/rewrite`, {
      key: broke.keys.admin,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/balance/);
  });

  it('allows 10 calls an hour per site, then 429 with Retry-After', async () => {
    const busy = (
      await app.request('POST', `/orgs/${ws.orgId}/projects`, {
        key: ws.keys.admin,
        body: { name: 'Busy', url: 'busy.com' },
      })
    ).body.project.id;
    for (let i = 0; i < 10; i++)
      expect((await app.request('POST', `/projects/${busy}/prompts/rewrite`, { key: ws.keys.admin })).status).toBe(200);
    const res = await app.request('POST', `/projects/${busy}/prompts/rewrite`, { key: ws.keys.admin });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts a call that joins a rewrite already queued (CONTRACT.md: every call counts)', async () => {
    const site = (
      await app.request('POST', `/orgs/${ws.orgId}/projects`, {
        key: ws.keys.admin,
        body: { name: 'Joined', url: 'joined.com' },
      })
    ).body.project.id;
    await app.ctx.db
      .insertInto('prompts')
      .values({ siteId: site, text: 'crm for plumbers', status: 'draft', raw: true })
      .execute();
    // Held in the queue, so every call after the first joins it.
    const queue = app.ctx.jobs.queue('rewrite');
    await queue.pause();
    try {
      for (let i = 0; i < 10; i++) {
        const res = await app.request('POST', `/projects/${site}/prompts/rewrite`, { key: ws.keys.admin });
        expect(res.status).toBe(200);
        expect(res.body.rewrite).toMatchObject({ state: 'queued', jobId: `rewrite-${site}` });
      }
      const over = await app.request('POST', `/projects/${site}/prompts/rewrite`, { key: ws.keys.admin });
      expect(over.status).toBe(429);
      expect(over.body.error).toMatch(/10 rewrite calls per site/);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await queue.resume();
    }
  });
});

describe('rewrites per day (a workspace allowance of model calls)', () => {
  const perDay = PLAN_LIMITS.free.rewritesPerDay;
  let free: Org;
  let sites: number[];

  async function jobResult(siteId: number): Promise<RewriteResult> {
    const queue = app.ctx.jobs.queue('rewrite');
    await expect
      .poll(async () => (await queue.getJob(`rewrite-${siteId}`))?.finishedOn !== undefined, { timeout: 30_000 })
      .toBe(true);
    const job = await queue.getJob(`rewrite-${siteId}`);
    expect(job?.failedReason).toBeUndefined();
    return job?.returnvalue as RewriteResult;
  }

  beforeAll(async () => {
    free = await seedOrg(app.ctx, { plan: 'free', balanceUsd: 5 });
    // Two sites of 80 imported queries each: together more than the free plan's rewrites for a day.
    await setOrgLimits(app.ctx, free.orgId, { sites: 2, promptsPerSite: 80 });
    sites = [];
    for (const name of ['one', 'two']) {
      const site = await app.request('POST', `/orgs/${free.orgId}/projects`, {
        key: free.keys.admin,
        body: { name, url: `${name}-rewrites.com` },
      });
      sites.push(site.body.project.id);
      const rows = Array.from({ length: 80 }, (_, i) => `${name} crm tool ${i}`).join('\n');
      const imported = await app.request('POST', `/projects/${site.body.project.id}/prompts/import`, {
        key: free.keys.member,
        body: { contents: `keyword\n${rows}\n` },
      });
      expect(imported.body.created).toBe(80);
    }
  });

  it('holds for concurrent jobs of two sites together; prompts past it stay raw and the job says how many', async () => {
    expect(perDay).toBeLessThan(160);
    await fetch(`${app.simulatorUrl}/__sim/requests`, { method: 'DELETE' });
    // Both jobs queued first, then released together so they run at once on the test's workers.
    const queue = app.ctx.jobs.queue('rewrite');
    await queue.pause();
    try {
      for (const site of sites) {
        const res = await app.request('POST', `/projects/${site}/prompts/rewrite`, { key: free.keys.admin });
        expect(res.body.rewrite).toMatchObject({ state: 'queued', pending: 80, rewritesLeftToday: perDay });
      }
    } finally {
      await queue.resume();
    }
    const results = await Promise.all(sites.map(jobResult));
    const asked = results.reduce((n, r) => n + r.rewritten + r.kept, 0);
    expect(asked).toBe(perDay);
    expect(results.reduce((n, r) => n + r.leftForCap, 0)).toBe(160 - perDay);
    const stillRaw = await app.ctx.db
      .selectFrom('prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', 'in', sites)
      .where('raw', '=', true)
      .executeTakeFirstOrThrow();
    expect(Number(stillRaw.n)).toBe(160 - results.reduce((n, r) => n + r.rewritten, 0));
    // The model was asked exactly the allowance's number of times.
    const log = (await (await fetch(`${app.simulatorUrl}/__sim/requests`)).json()) as { requests: unknown[] };
    expect(log.requests.filter((r) => JSON.stringify(r).includes('Rewrite this search query'))).toHaveLength(perDay);
  });

  it('answers 429 with Retry-After (seconds to the next UTC day) when the workspace has no rewrites left today', async () => {
    const res = await app.request('POST', `/projects/${sites[0]}/prompts/rewrite`, { key: free.keys.admin });
    expect(res.status).toBe(429);
    expect(res.body.error).toMatch(new RegExp(`used its ${perDay} query rewrites for today`));
    const retryAfter = Number(res.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
    const pending = await app.request('GET', `/projects/${sites[0]}/prompts/rewrite/pending`, {
      key: free.keys.viewer,
    });
    expect(pending.body.rewritesLeftToday).toBe(0);
  });

  it('grants concurrent takers no more than the allowance in all', async () => {
    const orgId = 1_000_000 + Math.floor(Math.random() * 1000);
    const grants = await Promise.all(Array.from({ length: 12 }, () => takeRewrites(app.ctx, orgId, 100, 20)));
    expect(grants.reduce((a, b) => a + b, 0)).toBe(100);
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
