import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ScanRow, ScanStatus, StopReason } from '../../db/schema.ts';
import { utcMonthFirstDay } from '../../dates.ts';
import { serializeScan } from '../common/index.ts';
import { scanChangeDrafts, wantsChanges } from './changes.ts';
import { draft, type EventDraft, type EventType } from './event-types.ts';
import { moneyDrafts } from './money-events.ts';
import { dispatch, listenedTypes, recordEvents } from './outbox.ts';

/**
 * Where a scan ends (done or failed), its events are written: in the same
 * transaction as the scan's final update, so a scan that ended has its events
 * and one that did not end has none, whatever crashes in between. The
 * changes against the previous comparable scan are read before that
 * transaction (every answer is stored by then): a failure reading them is
 * logged and never keeps the scan from ending.
 */

export interface ScanEnd {
  status: Extract<ScanStatus, 'done' | 'failed' | 'cancelled'>;
  stopReason: StopReason | null;
  error?: string;
}

/** The API address of a scan, for links in events. */
const scanLink = (ctx: AppContext, siteId: number, scanId: number) =>
  `${ctx.config.publicBaseUrl}/projects/${siteId}/scans/${scanId}`;

/** The providers, models and samples a scan asked: two scans compare only when these are equal. */
function settingsKey(plan: ScanRow['plan']): string {
  const providers = [...(plan.providers ?? [])].sort();
  return JSON.stringify([providers, providers.map((p) => plan.models?.[p] ?? null), plan.samples ?? 1]);
}

/** The site's latest finished scan before this one with the same providers, models and samples. */
async function previousComparable(ctx: AppContext, scan: ScanRow): Promise<ScanRow | null> {
  const candidates = await ctx.db
    .selectFrom('scans')
    .selectAll()
    .where('siteId', '=', scan.siteId)
    .where('status', '=', 'done')
    .where('id', '<>', scan.id)
    .where('finishedAt', 'is not', null)
    .orderBy('finishedAt', 'desc')
    .limit(50)
    .execute();
  const key = settingsKey(scan.plan);
  return candidates.find((s) => settingsKey(s.plan) === key) ?? null;
}

async function changeDrafts(
  ctx: AppContext,
  scan: ScanRow,
  site: { id: number; orgId: number; name: string },
  listened: Set<EventType>,
  endsAt: Date,
): Promise<EventDraft[]> {
  if (!wantsChanges(listened)) return [];
  try {
    const before = await previousComparable(ctx, scan);
    if (!before?.finishedAt) return [];
    const side = (s: ScanRow, finishedAt: Date) => ({ id: s.id, month: utcMonthFirstDay(s.createdAt), finishedAt });
    return await scanChangeDrafts(
      ctx.db,
      site,
      side(before, before.finishedAt),
      side(scan, endsAt),
      scanLink(ctx, site.id, scan.id),
      listened,
    );
  } catch (err) {
    ctx.logger.error(
      { err, scanId: scan.id },
      'could not compare the scan with the previous one; no change events for it',
    );
    return [];
  }
}

/**
 * Ends a scan that is in one of `from`: its final update and, when it ends
 * done or failed, its events and their deliveries, in one transaction; then
 * queues the deliveries. Answers whether this call ended it.
 */
export async function closeScan(ctx: AppContext, scanId: number, end: ScanEnd, from: ScanStatus[]): Promise<boolean> {
  const scan = await ctx.db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirst();
  if (!scan || !from.includes(scan.status)) return false;
  const site = await ctx.db
    .selectFrom('sites')
    .select(['id', 'orgId', 'name', 'monthlyCapMicros'])
    .where('id', '=', scan.siteId)
    .executeTakeFirstOrThrow();
  const listened =
    end.status === 'cancelled' ? new Set<EventType>() : await listenedTypes(ctx.db, scan.orgId, scan.siteId);
  const now = ctx.clock.now();
  const changes = end.status === 'done' ? await changeDrafts(ctx, scan, site, listened, now) : [];
  const result = await ctx.db.transaction().execute(async (trx) => {
    const ended = await trx
      .updateTable('scans')
      .set({
        status: end.status,
        stopReason: end.stopReason,
        ...(end.error !== undefined && { error: end.error }),
        finishedAt: now,
      })
      .where('id', '=', scanId)
      .where('status', 'in', from)
      .returningAll()
      .executeTakeFirst();
    if (!ended) return { ended: false, deliveries: [] as number[] };
    if (end.status === 'cancelled' || listened.size === 0) return { ended: true, deliveries: [] };
    // Events must never keep a scan from ending: a failure here rolls back to this point only.
    await sql`SAVEPOINT scan_events`.execute(trx);
    try {
      const link = scanLink(ctx, site.id, scanId);
      const type = end.status === 'done' ? ('scan.completed' as const) : ('scan.failed' as const);
      const drafts: EventDraft[] = [
        ...(listened.has(type)
          ? [
              draft(type, ended.orgId, site.id, `${type}:${scanId}`, {
                projectId: site.id,
                projectName: site.name,
                link,
                scan: serializeScan(ended),
              }),
            ]
          : []),
        ...changes,
        ...(await moneyDrafts(trx, ended, site, link, listened, now)),
      ];
      const deliveries = await recordEvents(trx, drafts, now);
      await sql`RELEASE SAVEPOINT scan_events`.execute(trx);
      return { ended: true, deliveries };
    } catch (err) {
      await sql`ROLLBACK TO SAVEPOINT scan_events`.execute(trx);
      ctx.logger.error({ err, scanId }, 'could not write the scan’s webhook events; the scan ends without them');
      return { ended: true, deliveries: [] };
    }
  });
  await dispatch(ctx, result.deliveries);
  return result.ended;
}
