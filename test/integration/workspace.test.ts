import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { topUp } from '../../src/domain/orgs/billing.ts';
import { setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { PROVIDER_KEYS } from '../../src/assistants/catalog.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addPerson, seedOrg, type Org } from '../helpers/fixtures.ts';

let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx, { name: 'Acme Group', plan: 'starter', balanceUsd: 20 });
});
afterAll(() => app.close());

const admin = () => ws.keys.admin;

describe('GET /orgs/:orgId', () => {
  it('shows name, plan, caller role, limits and balance', async () => {
    const res = await app.request('GET', `/orgs/${ws.orgId}`, { key: ws.keys.member });
    expect(res.status).toBe(200);
    expect(res.body.org).toMatchObject({
      id: ws.orgId,
      name: 'Acme Group',
      plan: 'starter',
      role: 'member',
      reportName: 'Acme Group',
      reportLogo: null,
      connectedAssistants: [...PROVIDER_KEYS],
      limits: { sites: 3, promptsPerSite: 150, scansPerMonth: 300, members: 50, rewritesPerDay: 600 },
      scansUsedThisMonth: 0,
      balanceUsd: 20,
      balance: '$20.00',
    });
  });
});

describe('sites', () => {
  it('creates a site with defaults and derives the domain', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: admin(),
      body: {
        name: ' Acme ',
        url: 'https://www.acme.com/en/',
        brandTerms: ['Acme Cloud', 'acme cloud', 'ACME'],
        competitors: [{ name: 'Globex', domain: 'www.globex.com' }, { name: 'Initech' }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.project).toMatchObject({
      name: 'Acme',
      url: 'https://www.acme.com/en/',
      domain: 'acme.com',
      language: 'English',
      location: 'United States',
      brandTerms: ['Acme Cloud', 'ACME'],
      monthlyCapUsd: null,
      allowedProviders: null,
      schedule: { enabled: false, batch: true, nextScanAt: null },
      competitors: [
        { name: 'Globex', domain: 'globex.com', aliases: [] },
        { name: 'Initech', domain: null },
      ],
    });
    const list = await app.request('GET', `/orgs/${ws.orgId}/projects`, { key: ws.keys.viewer });
    expect(list.body.projects.map((p: { domain: string }) => p.domain)).toContain('acme.com');
    expect(list.body.total).toBe(list.body.projects.length);
  });

  it('answers 409 for a domain the workspace already tracks, written differently', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: admin(),
      body: { name: 'Again', url: 'acme.com' },
    });
    expect(res.status).toBe(409);
    expect(res.body.fields).toEqual({ url: 'already tracked' });
  });

  it.each(['localhost', '127.0.0.1', 'intranet', 'acme.notarealtld', 'http://[::1]/', 'ftp://acme.org', 'not a url'])(
    'answers 400 "not a domain" for %s',
    async (url) => {
      const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: admin(), body: { name: 'X', url } });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/not a domain/);
    },
  );

  it('answers 422 when url is missing, and for too many brand terms or competitors', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: admin(),
      body: {
        name: 'X',
        brandTerms: Array.from({ length: 51 }, (_, i) => `t${i}`),
        competitors: Array.from({ length: 51 }, (_, i) => ({ name: `c${i}` })),
      },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields).sort()).toEqual(['brandTerms', 'competitors', 'url']);
  });

  it('answers 422 for a competitor listed twice or with a bad domain', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: admin(),
      body: { name: 'X', url: 'x-co.com', competitors: [{ name: 'A', domain: 'localhost' }, { name: 'a' }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.fields).toEqual({ 'competitors.0.domain': 'not a domain', 'competitors.1.name': 'listed twice' });
  });

  it('answers 400 with the limit in the message past the sites limit', async () => {
    const other = await seedOrg(app.ctx, { plan: 'free' });
    const first = await app.request('POST', `/orgs/${other.orgId}/projects`, {
      key: other.keys.admin,
      body: { name: 'One', url: 'one.com' },
    });
    expect(first.status).toBe(200);
    const second = await app.request('POST', `/orgs/${other.orgId}/projects`, {
      key: other.keys.admin,
      body: { name: 'Two', url: 'two.com' },
    });
    expect(second.status).toBe(400);
    expect(second.body.error).toMatch(/limit of 1 sites/);
  });

  it('holds the sites limit under concurrent creates', async () => {
    const other = await seedOrg(app.ctx, { plan: 'free' });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        app.request('POST', `/orgs/${other.orgId}/projects`, {
          key: other.keys.admin,
          body: { name: `S${i}`, url: `s${i}.com` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(5);
  });
});

describe('dashboard, providers, usage', () => {
  it('lists every site with numbers empty before the first scan', async () => {
    const res = await app.request('GET', `/orgs/${ws.orgId}/dashboard`, { key: ws.keys.viewer });
    expect(res.status).toBe(200);
    expect(res.body.connectedAssistants).toEqual([...PROVIDER_KEYS]);
    expect(res.body.limits).toMatchObject({ sites: 3, scansUsedThisMonth: 0 });
    expect(res.body.sites[0]).toMatchObject({ domain: 'acme.com', visibility: null, answers: 0 });
  });

  it('lists the six providers in order with default model and connection', async () => {
    const res = await app.request('GET', `/orgs/${ws.orgId}/providers`, { key: ws.keys.viewer });
    expect(res.body.providers.map((p: { key: string }) => p.key)).toEqual([...PROVIDER_KEYS]);
    for (const p of res.body.providers) {
      expect(p).toMatchObject({ connected: true, source: 'simulator', model: expect.any(String) });
      expect(p.models.find((m: { id: string }) => m.id === p.model).costPerAnswerUsd).toBeGreaterThan(0);
    }
    const openai = res.body.providers[0];
    expect(openai.models.map((m: { id: string }) => m.id)).toEqual(
      expect.arrayContaining(['chatgpt-app', 'chatgpt-app-queue']),
    );
  });

  it('shows balance and top-ups from the ledger', async () => {
    await topUp(app.ctx, { orgId: ws.orgId, amountMicros: 5_500_000, description: 'Card' });
    const res = await app.request('GET', `/orgs/${ws.orgId}/usage`, { key: ws.keys.viewer });
    expect(res.body.balanceUsd).toBe(25.5);
    expect(res.body.topups.map((t: { amountUsd: number }) => t.amountUsd)).toEqual([5.5, 20]);
    expect(res.body.costs.lastSixMonths).toHaveLength(6);
    expect(res.body.costs.pricePerAnswer).toHaveLength(6);
    expect(res.body.costs.sites[0]).toMatchObject({ domain: 'acme.com', spendThisMonthUsd: 0, monthlyCapUsd: null });
  });
});

describe('members and invitations', () => {
  it('lists members, pending invitations and the member limit', async () => {
    const res = await app.request('GET', `/orgs/${ws.orgId}/members`, { key: ws.keys.viewer });
    expect(res.status).toBe(200);
    expect(res.body.members.map((m: { role: string }) => m.role)).toEqual(['owner', 'viewer', 'member', 'admin']);
    expect(res.body.limit).toEqual({ members: 50, used: 4 });
  });

  it('invites, refuses a duplicate and an existing member with 409, and cancels with 204', async () => {
    const made = await app.request('POST', `/orgs/${ws.orgId}/invitations`, {
      key: admin(),
      body: { email: 'New@Example.com' },
    });
    expect(made.status).toBe(200);
    expect(made.body.invitation).toMatchObject({ email: 'New@Example.com', role: 'member', pending: true });
    const dup = await app.request('POST', `/orgs/${ws.orgId}/invitations`, {
      key: admin(),
      body: { email: 'new@example.com' },
    });
    expect(dup.status).toBe(409);
    const members = await app.request('GET', `/orgs/${ws.orgId}/members`, { key: admin() });
    const existing = members.body.members[1].email;
    const member = await app.request('POST', `/orgs/${ws.orgId}/invitations`, {
      key: admin(),
      body: { email: existing },
    });
    expect(member.status).toBe(409);
    expect(members.body.invitations.map((i: { email: string }) => i.email)).toEqual(['New@Example.com']);
    const cancel = await app.request('DELETE', `/orgs/${ws.orgId}/invitations/${made.body.invitation.id}`, {
      key: admin(),
    });
    expect(cancel.status).toBe(204);
    expect(cancel.text).toBe('');
    expect(
      (await app.request('DELETE', `/orgs/${ws.orgId}/invitations/${made.body.invitation.id}`, { key: admin() }))
        .status,
    ).toBe(404);
  });

  it('answers 422 for role owner or a bad email', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/invitations`, {
      key: admin(),
      body: { email: 'nope', role: 'owner' },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields).sort()).toEqual(['email', 'role']);
  });

  it('counts pending invitations against the member limit (400)', async () => {
    const small = await seedOrg(app.ctx);
    await setOrgLimits(app.ctx, small.orgId, { members: 5 });
    const ok = await app.request('POST', `/orgs/${small.orgId}/invitations`, {
      key: small.keys.admin,
      body: { email: 'fifth@example.com' },
    });
    expect(ok.status).toBe(200);
    const over = await app.request('POST', `/orgs/${small.orgId}/invitations`, {
      key: small.keys.admin,
      body: { email: 'sixth@example.com' },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/limit of 5 members/);
  });

  it('allows 20 invitations an hour per workspace, then 429 with Retry-After', async () => {
    const busy = await seedOrg(app.ctx);
    for (let i = 0; i < 20; i++) {
      const res = await app.request('POST', `/orgs/${busy.orgId}/invitations`, {
        key: busy.keys.admin,
        body: { email: `p${i}@example.com` },
      });
      expect(res.status).toBe(200);
    }
    const res = await app.request('POST', `/orgs/${busy.orgId}/invitations`, {
      key: busy.keys.admin,
      body: { email: 'p20@example.com' },
    });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(res.body).toEqual({ error: expect.stringMatching(/20 invitations/), fields: null });
  });

  it('changes a role, refuses owner as a role (422) and touching the owner (403)', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'member', 'changee');
    const res = await app.request('PATCH', `/orgs/${ws.orgId}/members/${person.userId}`, {
      key: admin(),
      body: { role: 'viewer' },
    });
    expect(res.status).toBe(200);
    expect(res.body.member).toEqual({ userId: person.userId, role: 'viewer' });
    expect(
      (
        await app.request('PATCH', `/orgs/${ws.orgId}/members/${person.userId}`, {
          key: admin(),
          body: { role: 'owner' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await app.request('PATCH', `/orgs/${ws.orgId}/members/${ws.ownerId}`, {
          key: admin(),
          body: { role: 'viewer' },
        })
      ).status,
    ).toBe(403);
    expect((await app.request('DELETE', `/orgs/${ws.orgId}/members/${ws.ownerId}`, { key: admin() })).status).toBe(403);
  });

  it('removes a member with 204 and their keys stop at once', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'admin', 'leaver');
    expect((await app.request('GET', '/whoami', { key: person.key as string })).status).toBe(200);
    const res = await app.request('DELETE', `/orgs/${ws.orgId}/members/${person.userId}`, { key: admin() });
    expect(res.status).toBe(204);
    expect((await app.request('GET', '/whoami', { key: person.key as string })).status).toBe(401);
    expect((await app.request('DELETE', `/orgs/${ws.orgId}/members/${person.userId}`, { key: admin() })).status).toBe(
      404,
    );
  });

  it('refuses to let a key remove its own creator (leaving needs a signed-in person)', async () => {
    const res = await app.request('DELETE', `/orgs/${ws.orgId}/members/${ws.users.admin}`, { key: admin() });
    expect(res.status).toBe(403);
  });
});
