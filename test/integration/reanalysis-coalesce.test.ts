import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/** No workers: requests find the reanalysis still queued, as a burst of edits does on a busy deployment. */
let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp({ env: {} });
  ws = await seedOrg(app.ctx);
});
afterAll(() => app?.close());

describe('repeated reanalyse requests', () => {
  it('coalesce into the one reanalysis still queued, with one job', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Burst', url: 'burst.com' },
    });
    const siteId = site.body.project.id;
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => app.request('POST', `/projects/${siteId}/reanalyse`, { key: ws.keys.member })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(200));
    const ids = new Set(answers.map((a) => a.body.reanalysis.id));
    expect(ids.size).toBe(1);
    const rows = await app.ctx.db
      .selectFrom('reanalyses')
      .select(['id', 'status'])
      .where('siteId', '=', siteId)
      .execute();
    expect(rows).toEqual([{ id: [...ids][0], status: 'queued' }]);
  }, 60_000);
});
