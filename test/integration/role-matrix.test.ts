import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPersona, personaCreateSchema } from '../../src/domain/personas/personas.ts';
import { promptCreateSchema } from '../../src/domain/prompts/schemas.ts';
import { createPrompt } from '../../src/domain/prompts/prompts.ts';
import { createShare } from '../../src/domain/shares/shares.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { findSite } from '../../src/domain/sites/sites.ts';
import { inviteMember } from '../../src/domain/orgs/invitations.ts';
import { atLeast } from '../../src/domain/orgs/roles.ts';
import { createMetrics } from '../../src/http/prometheus.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import type { Route } from '../../src/http/route.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addPerson, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Generated from the route table: every route x every key role is either
 * allowed (never 401/403) or refused with 403; every route with an id from
 * another workspace answers 404. New routes join the matrix by themselves;
 * new kinds of path ids need a fixture in `idsOf`.
 */

let app: TestApp;
let mine: Org;
let theirs: Org;
type Ids = Record<string, number | string>;
let own: Ids;
let foreign: Ids;

const routes: Route[] = allRoutes(createMetrics());
const keyed = routes.filter((r) => r.access !== 'public' && r.access !== 'signed-in');
const ROLES = ['viewer', 'member', 'admin'] as const;

async function idsOf(ws: Org): Promise<Ids> {
  const ctx = app.ctx;
  const site = await createSite(
    ctx,
    { orgId: ws.orgId, userId: ws.ownerId },
    { name: 'Matrix', url: `matrix-${ws.orgId}.com`, competitors: [{ name: 'Rival' }] },
  );
  const invitation = await inviteMember(
    ctx,
    { orgId: ws.orgId, userId: ws.ownerId },
    { email: `inv-${ws.orgId}@example.com`, role: 'member' },
  );
  const spare = await addPerson(ctx, ws.orgId, 'member', 'spare');
  const siteRow = await findSite(ctx.db, ws.orgId, site.id);
  const persona = await createPersona(
    ctx,
    siteRow,
    personaCreateSchema.parse({ name: 'Matrix buyer', context: 'Buys software' }),
  );
  const prompt = await createPrompt(
    ctx,
    siteRow,
    ws.ownerId,
    promptCreateSchema.parse({ text: 'Which tools does the matrix use?', personaId: persona.persona.id }),
  );
  const scan = await ctx.db
    .insertInto('scans')
    .values({ orgId: ws.orgId, siteId: site.id, status: 'done', trigger: 'import' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const reanalysis = await ctx.db
    .insertInto('reanalyses')
    .values({ siteId: site.id, reason: 'matrix' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const event = await ctx.db
    .insertInto('siteEvents')
    .values({ siteId: site.id, title: 'Matrix launch', date: '2026-11-02', type: 'site' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const page = await ctx.db
    .insertInto('pages')
    .values({
      siteId: site.id,
      url: `https://matrix-${ws.orgId}.com/about`,
      normalizedUrl: `https://matrix-${ws.orgId}.com/about`,
      path: '/about',
      section: 'about',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const share = await createShare(ctx, siteRow, ws.ownerId, { label: 'Matrix' });
  return {
    orgId: ws.orgId,
    id: site.id,
    scanId: scan.id,
    reanalysisId: reanalysis.id,
    userId: spare.userId,
    invitationId: invitation.invitation.id,
    competitorId: site.competitors[0]?.id ?? 0,
    promptId: prompt.prompt.id,
    personaId: persona.persona.id,
    eventId: event.id,
    pageId: page.id,
    shareId: share.share.id,
    token: 'not-a-token',
  };
}

function pathWith(route: Route, ids: Ids): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_, name: string) => String(ids[name] ?? 999_999)).replace(/\*$/, 'x');
}

function call(route: Route, ids: Ids, key: string) {
  const withBody = route.method === 'POST' || route.method === 'PATCH' || route.method === 'PUT';
  return app.request(route.method, pathWith(route, ids), { key, body: withBody ? (route.example ?? {}) : undefined });
}

beforeAll(async () => {
  // No workers run here: requests that wait for their job (sitemap import, crawler check) answer at once.
  app = await startTestApp({ env: { SITE_JOB_WAIT_MS: '0' } });
  mine = await seedOrg(app.ctx, { name: 'Mine' });
  theirs = await seedOrg(app.ctx, { name: 'Theirs' });
  own = await idsOf(mine);
  foreign = await idsOf(theirs);
});
afterAll(() => app.close());

describe('role matrix', () => {
  const cases = keyed.flatMap((route) => ROLES.map((role) => [`${route.method} ${route.path}`, role, route] as const));
  it.each(cases)('%s as %s', async (_name, role, route) => {
    const res = await call(route, own, mine.keys[role]);
    if (atLeast(role, route.access as 'viewer')) {
      expect([401, 403], `${res.status} ${res.text}`).not.toContain(res.status);
    } else {
      expect(res.status, res.text).toBe(403);
      expect(res.body.error).toMatch(new RegExp(`${route.access} access`));
    }
  });
});

describe('another workspace’s ids answer 404', () => {
  const withIds = keyed.filter((r) => /:[A-Za-z]+/.test(r.path));
  it.each(withIds.map((r) => [`${r.method} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const res = await call(route, foreign, mine.keys.admin);
    expect(res.status, res.text).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String), fields: null });
  });

  const withChildIds = withIds.filter((r) => (r.path.match(/:[A-Za-z]+/g) ?? []).length > 1);
  it.each(withChildIds.map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s with own workspace but a foreign child id',
    async (_name, route) => {
      const ids = { ...foreign, orgId: own.orgId as number, id: own.id as number };
      const res = await call(route, ids, mine.keys.admin);
      expect(res.status, res.text).toBe(404);
    },
  );
});

describe('signed-in-only routes', () => {
  it.each(routes.filter((r) => r.access === 'signed-in').map((r) => [`${r.method} ${r.path}`, r] as const))(
    '%s answers 403 to every key role',
    async (_n, route) => {
      for (const role of ROLES) {
        const res = await call(route, own, mine.keys[role]);
        expect(res.status).toBe(403);
      }
    },
  );
});
