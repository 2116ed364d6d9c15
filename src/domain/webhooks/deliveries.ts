import type { AppContext } from '../../context.ts';
import type { DeliveryStatus } from '../../db/schema.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { waitFor } from '../common/index.ts';
import { consumeRateLimit } from '../orgs/index.ts';
import { draft, type EventType } from './event-types.ts';
import { dispatch } from './outbox.ts';
import type { DeliveriesQuery } from './schemas.ts';
import { findWebhook, receives } from './webhooks.ts';

/**
 * A webhook's deliveries: listed newest first with their latest attempts,
 * replayed on request, and the test event. Test and replay answer the
 * attempt's result when it comes within a few seconds (SITE_JOB_WAIT_MS),
 * the pending delivery otherwise; the job goes on either way.
 */

const ATTEMPTS_SHOWN = 10;

interface DeliveryListRow {
  id: number;
  status: DeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date;
  deliveredAt: Date | null;
  createdAt: Date;
  uid: string;
  type: string;
  siteId: number | null;
}

function deliveriesQuery(ctx: AppContext, webhookId: number) {
  return ctx.db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .select([
      'd.id',
      'd.status',
      'd.attempts',
      'd.lastStatusCode',
      'd.lastError',
      'd.nextAttemptAt',
      'd.deliveredAt',
      'd.createdAt',
      'e.uid',
      'e.type',
      'e.siteId',
    ])
    .where('d.webhookId', '=', webhookId);
}

async function serializeDeliveries(ctx: AppContext, rows: DeliveryListRow[]) {
  const ids = rows.map((r) => r.id);
  const attempts = ids.length
    ? await ctx.db
        .selectFrom('webhookAttempts')
        .select(['deliveryId', 'attemptedAt', 'statusCode', 'error', 'latencyMs', 'response', 'replay'])
        .where('deliveryId', 'in', ids)
        .orderBy('id', 'desc')
        .execute()
    : [];
  const byDelivery = new Map<number, typeof attempts>();
  for (const a of attempts) {
    const list = byDelivery.get(a.deliveryId) ?? [];
    if (list.length < ATTEMPTS_SHOWN) list.push(a);
    byDelivery.set(a.deliveryId, list);
  }
  return rows.map((r) => ({
    id: r.id,
    eventId: r.uid,
    type: r.type as EventType,
    projectId: r.siteId,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    nextAttemptAt: r.status === 'pending' ? r.nextAttemptAt : null,
    deliveredAt: r.deliveredAt,
    createdAt: r.createdAt,
    attemptLog: (byDelivery.get(r.id) ?? []).map((a) => ({
      at: a.attemptedAt,
      statusCode: a.statusCode,
      error: a.error,
      latencyMs: a.latencyMs,
      response: a.response,
      replay: a.replay,
    })),
  }));
}

async function oneDelivery(ctx: AppContext, webhookId: number, deliveryId: number) {
  const row = await deliveriesQuery(ctx, webhookId).where('d.id', '=', deliveryId).executeTakeFirst();
  if (!row) throw new NotFoundError(`No delivery with id ${deliveryId} for this webhook`);
  return (await serializeDeliveries(ctx, [row]))[0] as Awaited<ReturnType<typeof serializeDeliveries>>[number];
}

export async function listDeliveries(ctx: AppContext, orgId: number, webhookId: number, q: DeliveriesQuery) {
  await findWebhook(ctx.db, orgId, webhookId);
  let list = deliveriesQuery(ctx, webhookId);
  let counted = ctx.db
    .selectFrom('webhookDeliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('webhookId', '=', webhookId);
  if (q.status) {
    list = list.where('d.status', '=', q.status);
    counted = counted.where('status', '=', q.status);
  }
  const [rows, total] = await Promise.all([
    list
      .orderBy('d.id', 'desc')
      .limit(q.perPage)
      .offset((q.page - 1) * q.perPage)
      .execute(),
    counted.executeTakeFirstOrThrow(),
  ]);
  return { deliveries: await serializeDeliveries(ctx, rows), total: Number(total.n), page: q.page, perPage: q.perPage };
}

/** Waits a little for an attempt of the delivery beyond `after`, then answers it as it is. */
async function settled(ctx: AppContext, webhookId: number, deliveryId: number, after: number) {
  await waitFor(
    () => ctx.db.selectFrom('webhookDeliveries').select('attempts').where('id', '=', deliveryId).executeTakeFirst(),
    (r) => !r || r.attempts > after,
    ctx.config.siteFetch.jobWaitMs,
  );
  return oneDelivery(ctx, webhookId, deliveryId);
}

/** One more attempt of the delivery now, in whatever state it is, with the same webhook-id. */
export async function replayDelivery(ctx: AppContext, orgId: number, webhookId: number, deliveryId: number) {
  const hook = await findWebhook(ctx.db, orgId, webhookId);
  if (!hook.enabled)
    throw new BadRequestError(
      `This webhook is disabled (${hook.disabledReason ?? 'no reason given'}); enable it first`,
    );
  const exists = await ctx.db
    .selectFrom('webhookDeliveries')
    .select('id')
    .where('id', '=', deliveryId)
    .where('webhookId', '=', webhookId)
    .executeTakeFirst();
  if (!exists) throw new NotFoundError(`No delivery with id ${deliveryId} for this webhook`);
  await consumeRateLimit(ctx, 'webhookSends', webhookId);
  const row = await ctx.db
    .updateTable('webhookDeliveries')
    .set((eb) => ({ replays: eb('replays', '+', 1) }))
    .where('id', '=', deliveryId)
    .where('webhookId', '=', webhookId)
    .returning(['replays', 'attempts'])
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No delivery with id ${deliveryId} for this webhook`);
  // Its own job id per replay: the delivery's regular job may be waiting for a retry.
  await ctx.jobs.enqueue(
    'webhook-delivery',
    { deliveryId, replay: row.replays },
    { jobId: `webhook-replay-${deliveryId}-${row.replays}` },
  );
  return { delivery: await settled(ctx, webhookId, deliveryId, row.attempts) };
}

/** Sends a `webhook.test` event to this webhook only (it must list the type, or "*"). */
export async function testWebhook(ctx: AppContext, orgId: number, webhookId: number) {
  const hook = await findWebhook(ctx.db, orgId, webhookId);
  if (!hook.enabled)
    throw new BadRequestError(
      `This webhook is disabled (${hook.disabledReason ?? 'no reason given'}); enable it first`,
    );
  if (!receives(hook, 'webhook.test'))
    throw new BadRequestError(
      'This webhook does not receive webhook.test: add it to its events (or use ["*"]) to test it',
    );
  await consumeRateLimit(ctx, 'webhookSends', webhookId);
  const now = ctx.clock.now();
  const event = draft('webhook.test', orgId, null, null, {
    webhookId,
    message: 'A test event from Sightline: this webhook is set up.',
  });
  const made = await ctx.db.transaction().execute(async (trx) => {
    const e = await trx
      .insertInto('webhookEvents')
      .values({
        orgId,
        siteId: null,
        type: event.type,
        dedupeKey: null,
        data: JSON.stringify(event.data),
        createdAt: now,
      })
      .returning(['id', 'uid'])
      .executeTakeFirstOrThrow();
    const d = await trx
      .insertInto('webhookDeliveries')
      .values({ webhookId, eventId: e.id, nextAttemptAt: now, createdAt: now })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { uid: e.uid, deliveryId: d.id };
  });
  await dispatch(ctx, [made.deliveryId]);
  return {
    event: { id: made.uid, type: 'webhook.test' as const },
    delivery: await settled(ctx, webhookId, made.deliveryId, 0),
  };
}
