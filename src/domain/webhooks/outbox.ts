import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { EVENT_TYPES, type EventDraft, type EventType } from './event-types.ts';

/**
 * The outbox. A producer writes its events with `recordEvents` inside the
 * transaction of the change that causes them (a scan's final update, a
 * crawler check's result, a period's comparison), which also makes one
 * delivery per subscribed webhook. After the commit it calls `dispatch` to
 * queue their jobs. A crash or a Redis outage between the two loses nothing:
 * the deliveries are rows, and the reconciler (./reconcile.ts) queues any
 * whose job is missing. An event that may happen once carries a dedupe key,
 * unique in the table, so a second write of it (a retried job) is ignored
 * and nothing is sent twice under two ids.
 */

/** Job ids derive from the delivery, so queuing one twice leaves one job. */
export const deliveryJobId = (deliveryId: number) => `webhook-delivery-${deliveryId}`;

/**
 * Event types some enabled webhook of the workspace receives for this site
 * (every type for `["*"]`): producers skip computing what nobody listens
 * to, which keeps a scan's end cheap for the many workspaces without webhooks.
 */
export async function listenedTypes(db: Executor, orgId: number, siteId: number | null): Promise<Set<EventType>> {
  const rows = await db
    .selectFrom('webhooks')
    .select(['events', 'siteIds'])
    .where('orgId', '=', orgId)
    .where('enabled', '=', true)
    .execute();
  const out = new Set<EventType>();
  for (const r of rows) {
    if (siteId !== null && r.siteIds !== null && !r.siteIds.includes(siteId)) continue;
    for (const type of r.events.includes('*') ? EVENT_TYPES : (r.events as EventType[])) out.add(type);
  }
  return out;
}

/**
 * Writes the events and their deliveries in one statement, in the caller's
 * transaction; answers the new deliveries' ids (none for an event already
 * written, or one nobody receives). A webhook receives an event when it is
 * enabled, lists its type (or "*"), and lists its site (or every site);
 * workspace events (no site) reach it whatever sites it lists.
 */
export async function recordEvents(db: Executor, drafts: readonly EventDraft[], at: Date): Promise<number[]> {
  if (drafts.length === 0) return [];
  const input = JSON.stringify(
    drafts.map((d, ord) => ({
      ord,
      org_id: d.orgId,
      site_id: d.siteId,
      type: d.type,
      dedupe_key: d.dedupeKey,
      data: d.data,
    })),
  );
  const { rows } = await sql<{ id: number }>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${input}::jsonb) AS x(ord int, org_id int, site_id int, type text, dedupe_key text, data jsonb)
    ), e AS (
      INSERT INTO webhook_events (org_id, site_id, type, dedupe_key, data, created_at)
      SELECT org_id, site_id, type, dedupe_key, data, ${at} FROM input ORDER BY ord
      ON CONFLICT (dedupe_key) DO NOTHING
      RETURNING id, org_id, site_id, type
    )
    INSERT INTO webhook_deliveries (webhook_id, event_id, next_attempt_at, created_at)
    SELECT w.id, e.id, ${at}, ${at}
      FROM e JOIN webhooks w ON w.org_id = e.org_id AND w.enabled
       AND (e.type = ANY (w.events) OR '*' = ANY (w.events))
       AND (e.site_id IS NULL OR w.site_ids IS NULL OR e.site_id = ANY (w.site_ids))
     ORDER BY e.id, w.id
    RETURNING id`.execute(db);
  return rows.map((r) => r.id);
}

/**
 * Queues the deliveries' jobs, after the commit that wrote them. Never
 * throws: a delivery whose job could not be queued is queued by the
 * reconciler once it is overdue.
 */
export async function dispatch(ctx: AppContext, deliveryIds: readonly number[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  try {
    await ctx.jobs.enqueueMany(
      'webhook-delivery',
      deliveryIds.map((id) => ({ payload: { deliveryId: id }, jobId: deliveryJobId(id) })),
    );
  } catch (err) {
    ctx.logger.warn(
      { err: (err as Error).message, deliveries: deliveryIds.length },
      'webhook deliveries not queued; the reconciler will',
    );
  }
}

/** Writes events in a transaction of their own and queues their deliveries: for producers whose change is already committed. */
export async function emit(ctx: AppContext, drafts: readonly EventDraft[]): Promise<number[]> {
  if (drafts.length === 0) return [];
  const ids = await ctx.db.transaction().execute((trx) => recordEvents(trx, drafts, ctx.clock.now()));
  await dispatch(ctx, ids);
  return ids;
}
