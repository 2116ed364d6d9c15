import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { createApiKey, generateKey, hashKey, revokeApiKey } from '../../src/domain/orgs/api-keys.ts';
import { KEY_REFUSAL_TTL_MS } from '../../src/domain/orgs/key-cache.ts';
import { addMember, changeMemberRole, removeMemberAsOperator } from '../../src/domain/orgs/members.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { addPerson, seedOrg, type Org } from '../helpers/fixtures.ts';
import { loadJobTable } from '../../jobs/load-table.ts';

const clock = fixedClock('2026-11-22T10:00:00Z');
let app: TestApp;
let ws: Org;
const UNAUTHORIZED = { error: 'Sign in or send a valid API key', fields: null };

beforeAll(async () => {
  app = await startTestApp({ clock });
  ws = await seedOrg(app.ctx, { name: 'Auth Co' });
});
afterAll(() => app.close());

describe('401 forms', () => {
  it.each([
    ['no Authorization header', undefined],
    ['a non-Bearer scheme', 'Basic abc'],
    ['a key of the wrong form', 'Bearer slk_short'],
    ['a key with a wrong prefix', `Bearer sk_${'a'.repeat(40)}`],
    ['a key with a character outside the alphabet', `Bearer slk_${'a'.repeat(39)}!`],
    ['a well-formed unknown key', `Bearer ${generateKey()}`],
  ])('answers 401 for %s', async (_label, header) => {
    const res = await app.request('GET', '/whoami', { headers: header ? { authorization: header } : {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('stops a revoked key on the very next request', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'member');
    const key = person.key as string;
    expect((await app.request('GET', '/whoami', { key })).status).toBe(200);
    const row = await app.ctx.db
      .selectFrom('apiKeys')
      .select('id')
      .where('createdBy', '=', person.userId)
      .executeTakeFirstOrThrow();
    await revokeApiKey(app.ctx, row.id);
    const res = await app.request('GET', '/whoami', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('stops a key whose creator left the workspace', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'admin');
    await removeMemberAsOperator(app.ctx, ws.orgId, person.userId);
    expect((await app.request('GET', '/whoami', { key: person.key as string })).status).toBe(401);
  });
});

describe('revocation in another API process', () => {
  // A second API server with its own context: its own key cache and Redis subscriber, as another process has.
  async function otherProcess() {
    const ctx = createContext(app.config, {
      role: 'api',
      jobTable: loadJobTable,
      logger: createLogger('silent'),
      dbPoolSize: 2,
    });
    const http = createHttpServer(ctx, allRoutes);
    const url = await http.listen(0, '127.0.0.1');
    const whoami = async (key: string) =>
      (await fetch(`${url}/whoami`, { headers: { authorization: `Bearer ${key}` } })).status;
    return { whoami, close: async () => (await http.close(), await closeContext(ctx)) };
  }

  it('is heard at once when announced', async () => {
    const other = await otherProcess();
    try {
      const person = await addPerson(app.ctx, ws.orgId, 'member');
      const key = person.key as string;
      expect(await other.whoami(key)).toBe(200);
      const row = await app.ctx.db
        .selectFrom('apiKeys')
        .select('id')
        .where('createdBy', '=', person.userId)
        .executeTakeFirstOrThrow();
      await revokeApiKey(app.ctx, row.id);
      await expect.poll(() => other.whoami(key), { timeout: 1_000, interval: 20 }).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('holds within a second even when no announcement arrives (Redis lost it)', async () => {
    const other = await otherProcess();
    try {
      const person = await addPerson(app.ctx, ws.orgId, 'member');
      const key = person.key as string;
      expect(await other.whoami(key)).toBe(200);
      // Surgery behind the domain's back: nothing is announced, so only the cache's TTL can end it.
      await app.ctx.db
        .updateTable('apiKeys')
        .set({ revokedAt: new Date() })
        .where('createdBy', '=', person.userId)
        .execute();
      // The TTL is 1 s; the rest is slack for a loaded machine.
      await expect.poll(() => other.whoami(key), { timeout: 1_500, interval: 20 }).toBe(401);
    } finally {
      await other.close();
    }
  });
});

describe('refused keys (a short negative cache)', () => {
  /** Key look-ups this process asks Postgres for (the prepared statement of auth.ts), while `work` runs. */
  async function lookupsDuring(work: () => Promise<void>): Promise<number> {
    const spy = vi.spyOn(pg.Pool.prototype, 'query');
    try {
      await work();
      return spy.mock.calls.filter(([config]) => (config as { name?: string } | undefined)?.name === 'auth-key-lookup')
        .length;
    } finally {
      spy.mockRestore();
    }
  }
  const whoami = async (key: string) => (await app.request('GET', '/whoami', { key })).status;
  /** A key row made behind this process's back, as the CLI in another process makes one. */
  const storeKeyElsewhere = (key: string) =>
    app.ctx.db
      .insertInto('apiKeys')
      .values({
        orgId: ws.orgId,
        createdBy: ws.users.member,
        name: 'made elsewhere',
        prefix: key.slice(0, 8),
        keyHash: hashKey(key),
        role: 'member',
      })
      .execute();

  it('asks Postgres once for an unknown well-formed key sent again and again', async () => {
    const key = generateKey();
    const lookups = await lookupsDuring(async () => {
      for (let i = 0; i < 30; i++) expect(await whoami(key)).toBe(401);
      const together = await Promise.all(Array.from({ length: 20 }, () => whoami(key)));
      expect(together.every((s) => s === 401)).toBe(true);
    });
    expect(lookups).toBe(1);
    // A key that was never refused is still looked up.
    expect(await lookupsDuring(async () => expect(await whoami(generateKey())).toBe(401))).toBe(1);
  });

  it('lets a key made in this process work at once, even one refused a moment before', async () => {
    const key = generateKey();
    expect(await whoami(key)).toBe(401);
    await storeKeyElsewhere(key);
    expect(await whoami(key)).toBe(401);
    // Making a key here forgets this process's refusals.
    await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.member, name: 'made here' });
    expect(await whoami(key)).toBe(200);
  });

  it(`accepts a key made by another process within ${KEY_REFUSAL_TTL_MS / 1000} s, even one this process refused before`, async () => {
    expect(KEY_REFUSAL_TTL_MS).toBe(5_000);
    const key = generateKey();
    expect(await whoami(key)).toBe(401);
    await storeKeyElsewhere(key);
    await expect.poll(() => whoami(key), { timeout: KEY_REFUSAL_TTL_MS + 2_000, interval: 100 }).toBe(200);
  });

  it('forgets refusals when a change is announced (a creator added back makes the key good again)', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'member');
    const key = person.key as string;
    await removeMemberAsOperator(app.ctx, ws.orgId, person.userId);
    expect(await whoami(key)).toBe(401);
    await addMember(app.ctx, { orgId: ws.orgId, userId: person.userId, role: 'member' });
    expect(await whoami(key)).toBe(200);
  });
});

describe('key storage and identity', () => {
  it('stores only the SHA-256 of a key and its first 8 characters', async () => {
    const made = await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.admin, name: 'stored' });
    expect(made.key).toMatch(/^slk_[A-Za-z0-9_-]{40}$/);
    const row = await app.ctx.db.selectFrom('apiKeys').selectAll().where('id', '=', made.id).executeTakeFirstOrThrow();
    expect(row.prefix).toBe(made.key.slice(0, 8));
    expect(row.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(made.key);
  });

  it('whoami answers the identity record of the key', async () => {
    const res = await app.request('GET', '/whoami', { key: ws.keys.member });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      kind: 'token',
      tokenName: 'member key',
      user: { id: ws.users.member, name: 'member person', email: expect.stringContaining('@example.com') },
      org: { id: ws.orgId, name: 'Auth Co', plan: 'pro' },
      role: 'member',
    });
  });

  it("gives a key made without a role its creator's role, and an owner's key admin", async () => {
    const owner = await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.ownerId, name: 'owner key' });
    expect(owner.role).toBe('admin');
    const viewer = await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.viewer, name: 'v' });
    expect(viewer.role).toBe('viewer');
  });

  it('refuses to make a key with more access than its creator', async () => {
    await expect(
      createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.member, name: 'x', role: 'admin' }),
    ).rejects.toThrow(/more access/);
  });
});

describe('effective role', () => {
  it('lowers a key when its creator is lowered, and raises it back up to its own role only', async () => {
    const person = await addPerson(app.ctx, ws.orgId, 'admin');
    const key = person.key as string;
    expect((await app.request('GET', '/whoami', { key })).body.role).toBe('admin');
    await changeMemberRole(app.ctx, { orgId: ws.orgId, userId: ws.ownerId }, person.userId, { role: 'viewer' });
    expect((await app.request('GET', '/whoami', { key })).body.role).toBe('viewer');
    const refused = await app.request('POST', `/orgs/${ws.orgId}/invitations`, {
      key,
      body: { email: 'x@example.com' },
    });
    expect(refused.status).toBe(403);
    await changeMemberRole(app.ctx, { orgId: ws.orgId, userId: ws.ownerId }, person.userId, { role: 'admin' });
    expect((await app.request('GET', '/whoami', { key })).body.role).toBe('admin');
  });

  it('never lets a viewer key act above viewer even when its creator is an admin', async () => {
    const made = await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.admin, name: 'ro', role: 'viewer' });
    expect((await app.request('GET', '/whoami', { key: made.key })).body.role).toBe('viewer');
  });
});

describe('last use', () => {
  it('is written at most once per 5 minutes', async () => {
    const made = await createApiKey(app.ctx, { orgId: ws.orgId, userId: ws.users.member, name: 'lu' });
    const lastUsed = async () =>
      (
        await app.ctx.db.selectFrom('apiKeys').select('lastUsedAt').where('id', '=', made.id).executeTakeFirstOrThrow()
      ).lastUsedAt?.toISOString() ?? null;
    expect(await lastUsed()).toBeNull();
    clock.set('2026-11-22T11:00:00Z');
    await app.request('GET', '/whoami', { key: made.key });
    expect(await lastUsed()).toBe('2026-11-22T11:00:00.000Z');
    clock.set('2026-11-22T11:04:59Z');
    await app.request('GET', '/whoami', { key: made.key });
    expect(await lastUsed()).toBe('2026-11-22T11:00:00.000Z');
    clock.set('2026-11-22T11:05:00Z');
    await app.request('GET', '/whoami', { key: made.key });
    expect(await lastUsed()).toBe('2026-11-22T11:05:00.000Z');
  });
});

describe('signed-in-only actions', () => {
  const cases: [string, string][] = [
    ['GET', '/auth/session'],
    ['POST', '/auth/login'],
    ['GET', '/account'],
    ['PATCH', '/account'],
    ['DELETE', '/account'],
    ['POST', '/account/password'],
    ['POST', '/orgs'],
    ['PATCH', '/orgs/:orgId'],
    ['DELETE', '/orgs/:orgId'],
    ['POST', '/orgs/:orgId/switch'],
    ['POST', '/orgs/:orgId/leave'],
    ['GET', '/orgs/:orgId/tokens'],
    ['POST', '/orgs/:orgId/tokens'],
    ['DELETE', '/orgs/:orgId/tokens/1'],
    ['POST', '/orgs/:orgId/topups'],
    ['GET', '/orgs/:orgId/invoices'],
    ['DELETE', '/projects/1'],
    ['POST', '/invitations/abc/accept'],
  ];
  it.each(cases)('%s %s answers 403 to an admin key, saying it needs a signed-in person', async (method, path) => {
    const res = await app.request(method, path.replace(':orgId', String(ws.orgId)), {
      key: ws.keys.admin,
      body: method === 'GET' || method === 'DELETE' ? undefined : {},
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: expect.stringMatching(/signed-in person.*not an API token/), fields: null });
  });

  it('still answers 401 first when no key is sent', async () => {
    expect((await app.request('POST', '/orgs', { body: {} })).status).toBe(401);
  });
});
