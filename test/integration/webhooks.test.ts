import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { EVENT_BODIES, draft } from '../../src/domain/webhooks/event-types.ts';
import { runWebhookDelivery } from '../../src/domain/webhooks/deliver.ts';
import { createSiteFetcher } from '../../src/web/site-fetch.ts';
import { createWebhookPoster } from '../../src/web/webhook-post.ts';
import { loadConfig } from '../../src/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { webhookCreateSchema } from '../../src/domain/webhooks/schemas.ts';
import { createWebhook } from '../../src/domain/webhooks/webhooks.ts';
import { recordEvents } from '../../src/domain/webhooks/outbox.ts';
import { EVENT_DAYS, runWebhookReconcile } from '../../src/domain/webhooks/reconcile.ts';
import { consumeRateLimit } from '../../src/domain/orgs/rate-limits.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver, type Received } from '../helpers/receiver.ts';

/**
 * Webhooks end to end through the API and a real worker, delivering to a
 * real HTTP receiver on loopback (hooks.test, through SITE_FETCH_MAP):
 * signatures checked with the `standardwebhooks` package's verifier, retries
 * on one webhook-id, timeouts, 410, secret rotation, replay, SSRF at create
 * and at delivery, one slow receiver beside a fast one, disabling, roles.
 */

let app: TestApp;
let receiver: Receiver;
let ws: Org;
let other: Org;

const TIMEOUT_MS = 700;

beforeAll(async () => {
  receiver = await startReceiver();
  app = await startTestApp({
    workers: { queues: ['webhook'], concurrency: 4 },
    env: {
      SITE_FETCH_MAP: `hooks.test=${receiver.url}`,
      WEBHOOK_RETRY_DELAYS_MS: '100,100,100,100,100,100,100',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      WEBHOOK_MAX_IN_FLIGHT: '2',
      WEBHOOKS_PER_WORKSPACE: '30',
    },
  });
  ws = await seedOrg(app.ctx);
  other = await seedOrg(app.ctx);
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
});

async function create(body: Record<string, unknown>, key = ws.keys.admin) {
  const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, { key, body });
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${res.text}`);
  return res.body.webhook as { id: number; secret: string; url: string };
}

const test = (id: number) => app.request('POST', `/orgs/${ws.orgId}/webhooks/${id}/test`, { key: ws.keys.admin });
const deliveries = (id: number, query = '') =>
  app.request('GET', `/orgs/${ws.orgId}/webhooks/${id}/deliveries${query}`, { key: ws.keys.admin });
const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': r.headers['webhook-id'] as string,
    'webhook-timestamp': r.headers['webhook-timestamp'] as string,
    'webhook-signature': r.headers['webhook-signature'] as string,
  });

async function deliveryWhen(
  webhookId: number,
  done: (d: { status: string; attempts: number }) => boolean,
  timeoutMs = 10_000,
) {
  const res = await waitFor(
    () => deliveries(webhookId),
    (r) => r.body.deliveries.length > 0 && done(r.body.deliveries[0]),
    timeoutMs,
    100,
  );
  return res.body.deliveries[0];
}

describe('webhook endpoints', () => {
  it('creates with the secret shown once, lists, reads, changes and deletes', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, {
      key: ws.keys.admin,
      body: { url: 'https://hooks.test/crud', events: ['scan.completed', 'visibility.changed'], description: 'Ops' },
    });
    expect(res.status).toBe(200);
    const hook = res.body.webhook;
    expect(hook).toMatchObject({
      url: 'https://hooks.test/crud',
      events: ['scan.completed', 'visibility.changed'],
      projectIds: null,
      format: 'standard',
      enabled: true,
      disabledReason: null,
    });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const list = await app.request('GET', `/orgs/${ws.orgId}/webhooks`, { key: ws.keys.admin });
    expect(list.body.webhooks.map((w: { id: number }) => w.id)).toContain(hook.id);
    expect(list.text).not.toContain(hook.secret);
    const one = await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key: ws.keys.admin });
    expect(one.body.webhook).not.toHaveProperty('secret');
    const changed = await app.request('PATCH', `/orgs/${ws.orgId}/webhooks/${hook.id}`, {
      key: ws.keys.admin,
      body: { events: ['*'], format: 'slack', description: null },
    });
    expect(changed.body.webhook).toMatchObject({ events: ['*'], format: 'slack', description: null });
    const gone = await app.request('DELETE', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key: ws.keys.admin });
    expect(gone.body).toMatchObject({ deleted: true, webhook: { id: hook.id } });
    expect((await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key: ws.keys.admin })).status).toBe(
      404,
    );
  });

  it('needs an admin key for every endpoint, reads included, and keeps to its workspace', async () => {
    const hook = await create({ url: 'https://hooks.test/roles' });
    for (const key of [ws.keys.member, ws.keys.viewer]) {
      expect((await app.request('GET', `/orgs/${ws.orgId}/webhooks`, { key })).status).toBe(403);
      expect((await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key })).status).toBe(403);
      expect((await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}/deliveries`, { key })).status).toBe(403);
      expect(
        (await app.request('POST', `/orgs/${ws.orgId}/webhooks`, { key, body: { url: 'https://hooks.test/x' } }))
          .status,
      ).toBe(403);
    }
    // Another workspace's admin: its own org id finds no such webhook, ours is not its workspace.
    expect(
      (await app.request('GET', `/orgs/${other.orgId}/webhooks/${hook.id}`, { key: other.keys.admin })).status,
    ).toBe(404);
    expect((await app.request('GET', `/orgs/${ws.orgId}/webhooks`, { key: other.keys.admin })).status).toBe(404);
    expect(
      (await app.request('POST', `/orgs/${other.orgId}/webhooks/${hook.id}/test`, { key: other.keys.admin })).status,
    ).toBe(404);
  });

  it('refuses a url that is not https, or names a private address, with 422 naming url', async () => {
    for (const url of [
      'http://hooks.test/x',
      'ftp://hooks.test/x',
      'not a url',
      'https://127.0.0.1/x',
      'https://10.1.2.3/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
      'https://hooks.test:8443/x',
    ]) {
      const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, { key: ws.keys.admin, body: { url } });
      expect(res.status, url).toBe(422);
      expect(Object.keys(res.body.fields), url).toEqual(['url']);
    }
  });

  it('resolves the host at create: a name that resolves to a loopback address is refused, naming url', async () => {
    // As a deployment with outbound fetches on: `localhost` resolves (from the hosts file, no network) to a loopback address.
    const outbound = { ...app.ctx, config: loadConfig({ ...app.env, SITE_FETCH_OUTBOUND: 'on' }) };
    const refused = await createWebhook(
      outbound,
      { orgId: ws.orgId, userId: ws.users.admin },
      webhookCreateSchema.parse({ url: 'https://localhost/hook' }),
    ).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ValidationError);
    // Which address a name resolves to is not told (it would map internal DNS), only that it is not public.
    expect((refused as ValidationError).fields).toEqual({
      url: expect.stringMatching(/localhost resolves to a non-public address/),
    });
    expect(JSON.stringify((refused as ValidationError).fields)).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('allows WEBHOOKS_PER_WORKSPACE webhooks (30 here), then answers 400', async () => {
    const crowded = await seedOrg(app.ctx);
    for (let i = 0; i < 30; i++) {
      const res = await app.request('POST', `/orgs/${crowded.orgId}/webhooks`, {
        key: crowded.keys.admin,
        body: { url: `https://hooks.test/many/${i}` },
      });
      expect(res.status).toBe(200);
    }
    const over = await app.request('POST', `/orgs/${crowded.orgId}/webhooks`, {
      key: crowded.keys.admin,
      body: { url: 'https://hooks.test/many/30' },
    });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/30 webhooks, the most it can have/);
  });

  it('refuses unknown event types, "*" with others, and projects of another workspace', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, {
        key: ws.keys.admin,
        body: { url: 'https://hooks.test/x', ...body },
      });
      expect(res.status).toBe(422);
      expect(Object.keys(res.body.fields)[0]).toMatch(new RegExp(`^${field}`));
    };
    await bad({ events: ['scan.done'] }, 'events');
    await bad({ events: ['*', 'scan.failed'] }, 'events');
    await bad({ events: [] }, 'events');
    await bad({ format: 'teams' }, 'format');
    const site = await app.request('POST', `/orgs/${other.orgId}/projects`, {
      key: other.keys.admin,
      body: { name: 'Elsewhere', url: 'elsewhere.com' },
    });
    await bad({ projectIds: [site.body.project.id] }, 'projectIds');
  });
});

describe('deliveries', () => {
  it('signs each delivery as Standard Webhooks: the package’s verifier accepts it, and the body is {type, timestamp, data}', async () => {
    const hook = await create({ url: 'https://hooks.test/signed', events: ['webhook.test'] });
    const res = await test(hook.id);
    expect(res.status).toBe(200);
    expect(res.body.event).toMatchObject({ type: 'webhook.test', id: expect.stringMatching(/^evt_[0-9a-f]{32}$/) });
    expect(res.body.delivery).toMatchObject({
      status: 'delivered',
      attempts: 1,
      lastStatusCode: 200,
      eventId: res.body.event.id,
    });
    const [got] = await receiver.waitFor('/signed', 1);
    const body = verify(hook.secret, got as Received);
    expect(EVENT_BODIES['webhook.test'].parse(body)).toMatchObject({
      type: 'webhook.test',
      data: { webhookId: hook.id },
    });
    expect(got?.headers['webhook-id']).toBe(res.body.event.id);
    expect(got?.headers['content-type']).toBe('application/json');
    // Another secret does not verify.
    expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got as Received)).toThrow();
  });

  it('a receiver that fails three times then succeeds: one event, one webhook-id, four attempts', async () => {
    receiver.on('/flaky', (n) => ({ status: n <= 3 ? 503 : 204 }));
    const hook = await create({ url: 'https://hooks.test/flaky', events: ['webhook.test'] });
    await test(hook.id);
    const got = await receiver.waitFor('/flaky', 4);
    const d = await deliveryWhen(hook.id, (x) => x.status === 'delivered');
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(got.map((r) => r.headers['webhook-id'])[0]).toBe(d.eventId);
    for (const r of got) verify(hook.secret, r);
    expect(d).toMatchObject({
      status: 'delivered',
      attempts: 4,
      lastStatusCode: 204,
      lastError: null,
      nextAttemptAt: null,
    });
    expect(d.attemptLog.map((a: { statusCode: number }) => a.statusCode)).toEqual([204, 503, 503, 503]);
    expect(d.attemptLog[1]).toMatchObject({ error: 'the receiver answered 503', response: 'ok', replay: false });
    expect((await deliveries(hook.id)).body.total).toBe(1);
  });

  it('a receiver that does not answer in time: the attempt is a timeout, then retried', async () => {
    receiver.on('/slow', (n) => (n === 1 ? { hang: true } : {}));
    const hook = await create({ url: 'https://hooks.test/slow', events: ['webhook.test'] });
    const started = Date.now();
    await test(hook.id);
    const d = await deliveryWhen(hook.id, (x) => x.status === 'delivered');
    expect(Date.now() - started).toBeLessThan(8_000);
    const first = d.attemptLog[1];
    expect(first).toMatchObject({ statusCode: null, error: expect.stringMatching(/^timeout: /) });
    expect(first.latencyMs).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect(first.latencyMs).toBeLessThan(TIMEOUT_MS + 1_500);
  });

  it('410 disables the webhook at once, with its reason, and fails what it had pending', async () => {
    receiver.on('/gone', () => ({ status: 410 }));
    const hook = await create({ url: 'https://hooks.test/gone', events: ['webhook.test'] });
    await test(hook.id);
    const d = await deliveryWhen(hook.id, (x) => x.status !== 'pending');
    expect(d).toMatchObject({ status: 'failed', attempts: 1, lastStatusCode: 410 });
    const after = await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key: ws.keys.admin });
    expect(after.body.webhook).toMatchObject({ enabled: false, disabledReason: 'the receiver answered 410 Gone' });
    expect(receiver.to('/gone')).toHaveLength(1);
    // Disabled: no test, no replay, until enabled again.
    expect((await test(hook.id)).status).toBe(400);
    const again = await app.request('PATCH', `/orgs/${ws.orgId}/webhooks/${hook.id}`, {
      key: ws.keys.admin,
      body: { enabled: true },
    });
    expect(again.body.webhook).toMatchObject({ enabled: true, disabledReason: null, failures: 0 });
  });

  it('is disabled after 50 failed attempts in a row, or failures throughout 3 days', async () => {
    receiver.on('/down', () => ({ status: 500 }));
    const runs = await create({ url: 'https://hooks.test/down', events: ['webhook.test'] });
    await app.ctx.db.updateTable('webhooks').set({ consecutiveFailures: 49 }).where('id', '=', runs.id).execute();
    await test(runs.id);
    await deliveryWhen(runs.id, (x) => x.status === 'failed');
    expect(
      (await app.request('GET', `/orgs/${ws.orgId}/webhooks/${runs.id}`, { key: ws.keys.admin })).body.webhook,
    ).toMatchObject({
      enabled: false,
      disabledReason: '50 attempts in a row failed',
      failures: 50,
    });
    const days = await create({ url: 'https://hooks.test/down', events: ['webhook.test'] });
    await app.ctx.db
      .updateTable('webhooks')
      .set({ consecutiveFailures: 3, failingSince: new Date(Date.now() - 3 * 24 * 3600 * 1000 - 1000) })
      .where('id', '=', days.id)
      .execute();
    await test(days.id);
    await deliveryWhen(days.id, (x) => x.status === 'failed');
    expect(
      (await app.request('GET', `/orgs/${ws.orgId}/webhooks/${days.id}`, { key: ws.keys.admin })).body.webhook,
    ).toMatchObject({
      enabled: false,
      disabledReason: 'every attempt failed for 3 days',
    });
  });

  it('gives up after the last retry: the delivery is failed, the webhook still enabled', async () => {
    receiver.on('/never', () => ({ status: 502 }));
    const hook = await create({ url: 'https://hooks.test/never', events: ['webhook.test'] });
    await test(hook.id);
    const d = await deliveryWhen(hook.id, (x) => x.status === 'failed', 15_000);
    // The first attempt and one per configured retry (seven).
    expect(d.attempts).toBe(8);
    expect(receiver.to('/never')).toHaveLength(8);
    expect(
      (await app.request('GET', `/orgs/${ws.orgId}/webhooks/${hook.id}`, { key: ws.keys.admin })).body.webhook,
    ).toMatchObject({ enabled: true, failures: 8 });
  });

  it('after a secret rotation both signatures are sent for 24 h, then only the new one', async () => {
    const hook = await create({ url: 'https://hooks.test/rotate', events: ['webhook.test'] });
    const rotated = await app.request('POST', `/orgs/${ws.orgId}/webhooks/${hook.id}/rotate-secret`, {
      key: ws.keys.admin,
    });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.webhook.secret as string;
    expect(fresh).not.toBe(hook.secret);
    const expires = Date.parse(rotated.body.webhook.previousSecretExpiresAt);
    expect(expires - Date.now()).toBeGreaterThan(23.9 * 3600 * 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
    await test(hook.id);
    const [during] = await receiver.waitFor('/rotate', 1);
    expect((during?.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    expect(() => verify(fresh, during as Received)).not.toThrow();
    expect(() => verify(hook.secret, during as Received)).not.toThrow();
    // 24 hours later.
    await app.ctx.db
      .updateTable('webhooks')
      .set({ previousSecretExpiresAt: new Date(Date.now() - 1000) })
      .where('id', '=', hook.id)
      .execute();
    await test(hook.id);
    const [, after] = await receiver.waitFor('/rotate', 2);
    expect((after?.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
    expect(() => verify(fresh, after as Received)).not.toThrow();
    expect(() => verify(hook.secret, after as Received)).toThrow();
  });

  it('replays a delivered delivery as one more attempt with the same webhook-id', async () => {
    const hook = await create({ url: 'https://hooks.test/replay', events: ['webhook.test'] });
    const first = await test(hook.id);
    const res = await app.request(
      'POST',
      `/orgs/${ws.orgId}/webhooks/${hook.id}/deliveries/${first.body.delivery.id}/replay`,
      { key: ws.keys.admin },
    );
    expect(res.status).toBe(200);
    expect(res.body.delivery).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(res.body.delivery.attemptLog[0]).toMatchObject({ replay: true, statusCode: 200 });
    const got = await receiver.waitFor('/replay', 2);
    expect(got[0]?.headers['webhook-id']).toBe(got[1]?.headers['webhook-id']);
    expect(got[0]?.body).toBe(got[1]?.body);
    expect(
      (
        await app.request('POST', `/orgs/${ws.orgId}/webhooks/${hook.id}/deliveries/999999/replay`, {
          key: ws.keys.admin,
        })
      ).status,
    ).toBe(404);
  });

  it('lists deliveries newest first, paged', async () => {
    const hook = await create({ url: 'https://hooks.test/paged', events: ['webhook.test'] });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await test(hook.id)).body.delivery.id);
    const page1 = await deliveries(hook.id, '?perPage=2');
    expect(page1.body).toMatchObject({ total: 3, page: 1, perPage: 2 });
    expect(page1.body.deliveries.map((d: { id: number }) => d.id)).toEqual([ids[2], ids[1]]);
    const page2 = await deliveries(hook.id, '?perPage=2&page=2');
    expect(page2.body.deliveries.map((d: { id: number }) => d.id)).toEqual([ids[0]]);
    expect((await deliveries(hook.id, '?status=failed')).body.total).toBe(0);
    expect((await deliveries(hook.id, '?perPage=500')).status).toBe(422);
  });

  it('allows 60 tests and replays of a webhook an hour, then answers 429 with Retry-After', async () => {
    const hook = await create({ url: 'https://hooks.test/limited', events: ['webhook.test'] });
    const first = await test(hook.id);
    expect(first.status).toBe(200);
    for (let i = 1; i < 60; i++) await consumeRateLimit(app.ctx, 'webhookSends', hook.id);
    const refused = await test(hook.id);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const replay = await app.request(
      'POST',
      `/orgs/${ws.orgId}/webhooks/${hook.id}/deliveries/${first.body.delivery.id}/replay`,
      { key: ws.keys.admin },
    );
    expect(replay.status).toBe(429);
    expect(receiver.to('/limited')).toHaveLength(1);
  });

  it('never follows a redirect: a 3xx is a failed attempt, and its target is never asked', async () => {
    receiver.on('/redirect', () => ({ status: 307, headers: { location: `${receiver.url}/internal` } }));
    const hook = await create({ url: 'https://hooks.test/redirect', events: ['webhook.test'] });
    const res = await test(hook.id);
    expect(res.body.delivery).toMatchObject({
      status: 'pending',
      lastStatusCode: 307,
      lastError: 'the receiver answered 307',
    });
    expect(receiver.to('/internal')).toHaveLength(0);
  });

  it('keeps the first 1 KB of an answer, without NUL, and never reads the rest of a huge one', async () => {
    receiver.on('/chatty', () => ({ body: `\u0000ok ${'é'.repeat(3 * 1024 * 1024)}` }));
    const hook = await create({ url: 'https://hooks.test/chatty', events: ['webhook.test'] });
    const res = await test(hook.id);
    expect(res.body.delivery.status).toBe('delivered');
    const kept = res.body.delivery.attemptLog[0].response as string;
    expect(kept.startsWith('ok é')).toBe(true);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(1024);
    expect(kept).not.toContain('\u0000');
  });

  it('only sends a webhook the event types it lists: a test needs webhook.test', async () => {
    const hook = await create({ url: 'https://hooks.test/picky', events: ['scan.completed'] });
    const res = await test(hook.id);
    expect(res.status).toBe(400);
    expect(receiver.to('/picky')).toHaveLength(0);
  });

  it('refuses at delivery an address that is not public: the attempt is refused, nothing is sent', async () => {
    const hook = await create({ url: 'https://hooks.test/moved', events: ['webhook.test'] });
    // The address changed behind our back (a database edit standing in for DNS that now answers privately).
    await app.ctx.db
      .updateTable('webhooks')
      .set({ url: 'https://127.0.0.1/moved' })
      .where('id', '=', hook.id)
      .execute();
    await test(hook.id);
    const d = await deliveryWhen(hook.id, (x) => x.attempts >= 1);
    expect(d.attemptLog.at(-1)).toMatchObject({
      statusCode: null,
      error: expect.stringMatching(/^refused: .*loopback/),
    });
    expect(receiver.to('/moved')).toHaveLength(0);
  });

  it('an event it cannot render fails its attempt with the reason (the job itself does not fail for ever)', async () => {
    const hook = await create({ url: 'https://hooks.test/odd', events: ['visibility.changed'], format: 'slack' });
    const made = await app.ctx.db.transaction().execute(async (trx) => {
      const e = await trx
        .insertInto('webhookEvents')
        .values({
          orgId: ws.orgId,
          siteId: null,
          type: 'visibility.changed',
          dedupeKey: null,
          data: JSON.stringify({ from: 'another version' }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx
        .insertInto('webhookDeliveries')
        .values({ webhookId: hook.id, eventId: e.id })
        .returning('id')
        .executeTakeFirstOrThrow();
    });
    expect(await runWebhookDelivery(app.ctx, made.id)).toMatchObject({ reason: expect.stringMatching(/next attempt/) });
    const row = await app.ctx.db
      .selectFrom('webhookAttempts')
      .select(['statusCode', 'error'])
      .where('deliveryId', '=', made.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ statusCode: null, error: 'internal: the visibility.changed event could not be rendered' });
    expect(receiver.to('/odd')).toHaveLength(0);
  });

  it('checks DNS again at each delivery: a name that now resolves to a private address is refused', async () => {
    const hook = await create({ url: 'https://hooks.test/rebind', events: ['webhook.test'] });
    await app.ctx.db
      .updateTable('webhooks')
      .set({ url: 'https://rebind.example/hook' })
      .where('id', '=', hook.id)
      .execute();
    const made = await app.ctx.db.transaction().execute(async (trx) => {
      const e = await trx
        .insertInto('webhookEvents')
        .values({
          orgId: ws.orgId,
          siteId: null,
          type: 'webhook.test',
          dedupeKey: null,
          data: JSON.stringify({ webhookId: hook.id, message: 'x' }),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return trx
        .insertInto('webhookDeliveries')
        .values({ webhookId: hook.id, eventId: e.id })
        .returning('id')
        .executeTakeFirstOrThrow();
    });
    const poster = createWebhookPoster(
      createSiteFetcher({
        map: new Map(),
        outbound: true,
        timeoutMs: 1000,
        connectTimeoutMs: 500,
        userAgent: 'test',
        resolve: async () => [{ address: '10.0.0.8', family: 4 }],
      }),
    );
    try {
      expect(await runWebhookDelivery(app.ctx, made.id, { poster })).toMatchObject({
        reason: expect.stringMatching(/next attempt/),
      });
    } finally {
      await poster.close();
    }
    const row = await app.ctx.db
      .selectFrom('webhookAttempts')
      .select(['statusCode', 'error'])
      .where('deliveryId', '=', made.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      statusCode: null,
      error: expect.stringMatching(/^refused: .*rebind\.example resolves to a non-public address/),
    });
    expect(row?.error).not.toMatch(/10\.0\.0\.8/);
  });

  it('a slow receiver holds its own slots only: a fast webhook is delivered at once beside its backlog', async () => {
    // Answers in 600 ms: slow, within the 700 ms timeout.
    receiver.on('/tortoise', () => ({ delayMs: 600 }));
    const slow = await create({ url: 'https://hooks.test/tortoise', events: ['webhook.test'] });
    const fast = await create({ url: 'https://hooks.test/hare', events: ['webhook.test'] });
    // Sixteen deliveries queued to the slow receiver first, together.
    const made = await app.ctx.db.transaction().execute(async (trx) => {
      const ids: number[] = [];
      for (let i = 0; i < 16; i++) {
        const e = await trx
          .insertInto('webhookEvents')
          .values({
            orgId: ws.orgId,
            siteId: null,
            type: 'webhook.test',
            dedupeKey: null,
            data: JSON.stringify({ webhookId: slow.id, message: `slow ${i}` }),
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        ids.push(
          (
            await trx
              .insertInto('webhookDeliveries')
              .values({ webhookId: slow.id, eventId: e.id })
              .returning('id')
              .executeTakeFirstOrThrow()
          ).id,
        );
      }
      return ids;
    });
    const { dispatch } = await import('../../src/domain/webhooks/outbox.ts');
    await dispatch(app.ctx, made);
    await receiver.waitFor('/tortoise', 1);
    const started = Date.now();
    await test(fast.id);
    await receiver.waitFor('/hare', 1);
    // Without the per-webhook limit the four delivery slots are the slow receiver's (600 ms each, sixteen queued first): 2.4 s or more.
    expect(Date.now() - started).toBeLessThan(1_000);
    // Never more than WEBHOOK_MAX_IN_FLIGHT (2) at once at the slow receiver.
    await receiver.waitFor('/tortoise', 16, 30_000);
    const times = receiver.to('/tortoise').map((r) => r.at);
    const overlapping = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 550).length));
    expect(overlapping).toBeLessThanOrEqual(2);
  });
});

describe('the outbox', () => {
  it('writes an event that may happen once only once: a second write of its dedupe key adds no event and no delivery', async () => {
    const hook = await create({ url: 'https://hooks.test/outbox', events: ['balance.low'] });
    const once = draft('balance.low', ws.orgId, null, `balance.low:${ws.orgId}:test`, {
      projectId: null,
      balanceUsd: 1,
      thresholdUsd: 2,
      thresholdFrom: 'setting',
      lastTopUpUsd: null,
      scanId: null,
    });
    const first = await app.ctx.db.transaction().execute((trx) => recordEvents(trx, [once], new Date()));
    const again = await app.ctx.db.transaction().execute((trx) => recordEvents(trx, [once], new Date()));
    // Every webhook of the workspace that receives it (some earlier ones receive "*").
    expect(first.length).toBeGreaterThanOrEqual(1);
    expect(again).toEqual([]);
    const rows = await app.ctx.db
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('webhookId', '=', hook.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('the reconciler deletes events older than 30 days with their deliveries and attempts', async () => {
    const hook = await create({ url: 'https://hooks.test/old', events: ['webhook.test'] });
    const sent = await test(hook.id);
    const old = new Date(Date.now() - (EVENT_DAYS + 1) * 24 * 3600 * 1000);
    await sql`UPDATE webhook_events SET created_at = ${old} WHERE uid = ${sent.body.event.id}`.execute(app.ctx.db);
    const fresh = await test(hook.id);
    const result = await runWebhookReconcile(app.ctx);
    expect(result.deleted).toBeGreaterThanOrEqual(1);
    const left = await app.ctx.db
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('webhookId', '=', hook.id)
      .execute();
    expect(left.map((d) => d.id)).toEqual([fresh.body.delivery.id]);
    expect(
      await app.ctx.db
        .selectFrom('webhookAttempts')
        .select('id')
        .where('deliveryId', '=', sent.body.delivery.id)
        .execute(),
    ).toEqual([]);
  });
});
