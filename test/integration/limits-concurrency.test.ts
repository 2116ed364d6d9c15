import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';

/** Limits hold under concurrent creates: exactly the room left is taken, never more. */
let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx, { balanceUsd: 100, plan: 'enterprise' });
});
afterAll(() => app?.close());

const statuses = (res: { status: number }[]) => res.map((r) => r.status).sort();

describe('limits under concurrent creates', () => {
  it('member seats: invitations count one after the other', async () => {
    const used = await app.ctx.db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', ws.orgId)
      .executeTakeFirstOrThrow();
    await setOrgLimits(app.ctx, ws.orgId, { members: Number(used.n) + 2 });
    const res = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.request('POST', `/orgs/${ws.orgId}/invitations`, {
          key: ws.keys.admin,
          body: { email: `seat${i}@example.com` },
        }),
      ),
    );
    expect(statuses(res)).toEqual([200, 200, 400, 400, 400, 400]);
  });

  it('competitors per site: at most 50, whatever arrives at once', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Crowded', url: 'crowded.com' },
    });
    const siteId = site.body.project.id;
    await app.ctx.db
      .insertInto('competitors')
      .values(Array.from({ length: 48 }, (_, i) => ({ siteId, name: `Rival ${i}`, aliases: [] })))
      .execute();
    const res = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.request('POST', `/projects/${siteId}/competitors`, {
          key: ws.keys.member,
          body: { name: `Newcomer ${i}` },
        }),
      ),
    );
    expect(statuses(res)).toEqual([200, 200, 400, 400, 400, 400]);
    const count = await app.ctx.db
      .selectFrom('competitors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', siteId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(50);
  }, 60_000);

  it('scans per month: concurrent starts on different sites take exactly the scans left', async () => {
    const sites: number[] = [];
    for (let i = 0; i < 6; i++) {
      const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
        key: ws.keys.admin,
        body: { name: `Month ${i}`, url: `month${i}.com` },
      });
      await addActivePrompts(app.ctx, site.body.project.id, [`Which Month ${i} tool?`]);
      sites.push(site.body.project.id);
    }
    const used = await app.ctx.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', ws.orgId)
      .executeTakeFirstOrThrow();
    await setOrgLimits(app.ctx, ws.orgId, { scansPerMonth: Number(used.n) + 2 });
    const res = await Promise.all(
      sites.map((id) =>
        app.request('POST', `/projects/${id}/scans`, { key: ws.keys.admin, body: { providers: ['openai'] } }),
      ),
    );
    expect(statuses(res)).toEqual([200, 200, 400, 400, 400, 400]);
    expect(res.filter((r) => r.status === 400).every((r) => /limit of \d+ scans this month/.test(r.body.error))).toBe(
      true,
    );
  });
});
