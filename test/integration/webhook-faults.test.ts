import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { deliveryJobId } from '../../src/domain/webhooks/outbox.ts';
import { clearRedisPrefix, startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/**
 * Webhook deliveries survive their worker and Redis: a worker process
 * SIGKILLed while its receiver holds the request (the delivery is sent again
 * by another worker, with the same webhook-id: at least once), and this
 * deployment's Redis keys deleted with deliveries pending (the reconciler
 * queues them again from the outbox). Only this file's worker processes and
 * its own Redis key prefix are touched; no shared service is stopped.
 */

let app: TestApp;
let receiver: Receiver;
let ws: Org;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  receiver = await startReceiver();
  // No in-process workers: each test runs `sightline worker` processes of its own.
  app = await startTestApp({
    env: {
      SITE_FETCH_MAP: `hooks.test=${receiver.url}`,
      JOB_LOCK_MS: '1000',
      WEBHOOK_RECONCILE_MS: '1000',
      WEBHOOK_TIMEOUT_MS: '2000',
      // The test endpoint answers at once, without waiting for the attempt.
      SITE_JOB_WAIT_MS: '0',
    },
  });
  ws = await seedOrg(app.ctx);
});
afterEach(() => kill());
afterAll(async () => {
  kill();
  await app?.close();
  await receiver?.close();
});

function spawnWorker(): ChildProcess {
  return spawn(
    path.resolve('node_modules/.bin/node'),
    [path.resolve('src/cli/main.ts'), 'worker', '--queues', 'webhook,schedule'],
    {
      env: { ...process.env, ...app.env, LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    },
  );
}

function kill(): void {
  if (worker && worker.exitCode === null) worker.kill('SIGKILL');
  worker = null;
}

async function hook(route: string) {
  const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, {
    key: ws.keys.admin,
    body: { url: `https://hooks.test${route}`, events: ['webhook.test'] },
  });
  return res.body.webhook as { id: number; secret: string };
}

const delivery = (id: number) =>
  app.ctx.db.selectFrom('webhookDeliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('webhook deliveries and faults', () => {
  it('a worker killed mid-delivery: another worker sends it again, same webhook-id, and it is delivered', async () => {
    receiver.on('/killed', (n) => (n === 1 ? { hang: true } : { status: 200 }));
    const h = await hook('/killed');
    worker = spawnWorker();
    const sent = await app.request('POST', `/orgs/${ws.orgId}/webhooks/${h.id}/test`, { key: ws.keys.admin });
    expect(sent.body.delivery.status).toBe('pending');
    await receiver.waitFor('/killed', 1, 20_000);
    // The receiver holds the request; the worker dies before it hears back.
    kill();
    worker = spawnWorker();
    const got = await receiver.waitFor('/killed', 2, 30_000);
    const done = await waitFor(
      () => delivery(sent.body.delivery.id),
      (d) => d.status === 'delivered',
      10_000,
    );
    expect(done.status).toBe('delivered');
    expect(got.map((r) => r.headers['webhook-id'])).toEqual([sent.body.event.id, sent.body.event.id]);
    expect(got[0]?.body).toBe(got[1]?.body);
  });

  it('Redis loses every key of this deployment with a delivery pending: the reconciler queues it again from the outbox', async () => {
    kill();
    const h = await hook('/flushed');
    // No worker: the delivery is written and its job queued, then Redis forgets the job.
    const sent = await app.request('POST', `/orgs/${ws.orgId}/webhooks/${h.id}/test`, { key: ws.keys.admin });
    const jobId = deliveryJobId(sent.body.delivery.id);
    expect(await app.ctx.jobs.queue('webhook').getJob(jobId)).toBeDefined();
    await clearRedisPrefix(app.env.REDIS_URL as string, app.env.REDIS_PREFIX as string);
    expect(await app.ctx.jobs.queue('webhook').getJob(jobId)).toBeUndefined();
    worker = spawnWorker();
    const [got] = await receiver.waitFor('/flushed', 1, 30_000);
    expect(got?.headers['webhook-id']).toBe(sent.body.event.id);
    await waitFor(
      () => delivery(sent.body.delivery.id),
      (d) => d.status === 'delivered',
      10_000,
    );
    expect(receiver.to('/flushed')).toHaveLength(1);
  });

  it('a crash between the commit and the enqueue: a delivery with no job is sent by the reconciler', async () => {
    const h = await hook('/orphan');
    worker = spawnWorker();
    const made = await app.ctx.db.transaction().execute(async (trx) => {
      const e = await trx
        .insertInto('webhookEvents')
        .values({
          orgId: ws.orgId,
          siteId: null,
          type: 'webhook.test',
          dedupeKey: null,
          data: JSON.stringify({ webhookId: h.id, message: 'orphan' }),
        })
        .returning(['id', 'uid'])
        .executeTakeFirstOrThrow();
      const d = await trx
        .insertInto('webhookDeliveries')
        .values({ webhookId: h.id, eventId: e.id })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { uid: e.uid, id: d.id };
    });
    const [got] = await receiver.waitFor('/orphan', 1, 30_000);
    expect(got?.headers['webhook-id']).toBe(made.uid);
    expect(
      (
        await waitFor(
          () => delivery(made.id),
          (d) => d.status === 'delivered',
          10_000,
        )
      ).status,
    ).toBe('delivered');
  });
});
