import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { deliveryJobId } from './outbox.ts';

/**
 * The `webhook-reconcile` job (every minute): no pending delivery is left
 * without a job behind it. A delivery is overdue when its next attempt was
 * due a while ago (longer than a job takes to be picked up) and no run holds
 * it; each overdue one whose job is missing (Redis lost its data, the
 * enqueue after the commit never happened) or ended is queued again under its
 * own job id, so a re-queue never doubles a live job. Events older than
 * EVENT_DAYS go, with their deliveries and attempts: every delivery has
 * ended long before.
 */

const PER_RUN = 500;
export const EVENT_DAYS = 30;
const DELETE_PER_RUN = 5_000;

export async function runWebhookReconcile(ctx: AppContext): Promise<{ requeued: number; deleted: number }> {
  const now = ctx.clock.now();
  const overdue = new Date(now.getTime() - 2 * ctx.config.jobLockMs);
  const rows = await ctx.db
    .selectFrom('webhookDeliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('nextAttemptAt', '<', overdue)
    .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<', now)]))
    .orderBy('nextAttemptAt')
    .limit(PER_RUN)
    .execute();
  const again: number[] = [];
  for (const { id } of rows) {
    const jobId = deliveryJobId(id);
    const state = await ctx.jobs.state('webhook-delivery', jobId);
    if (state === 'live') continue;
    if (state !== 'missing') await ctx.jobs.remove('webhook-delivery', jobId);
    again.push(id);
  }
  await ctx.jobs.enqueueMany(
    'webhook-delivery',
    again.map((id) => ({ payload: { deliveryId: id }, jobId: deliveryJobId(id) })),
  );
  const cutoff = new Date(now.getTime() - EVENT_DAYS * 24 * 3600 * 1000);
  const deleted = await sql`
    DELETE FROM webhook_events WHERE id IN (SELECT id FROM webhook_events WHERE created_at < ${cutoff} ORDER BY created_at LIMIT ${DELETE_PER_RUN})`.execute(
    ctx.db,
  );
  const out = { requeued: again.length, deleted: Number(deleted.numAffectedRows ?? 0) };
  if (out.requeued > 0) ctx.logger.warn(out, 'queued webhook deliveries that had no live job');
  return out;
}
