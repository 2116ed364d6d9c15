import type { AppContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { startScan } from './scans.ts';

const DAY_MS = 24 * 3600 * 1000;

/**
 * The nightly tick (a BullMQ job scheduler, 00:00 UTC): every site with its
 * schedule on whose next scan is due gets a scan with its saved settings and
 * the schedule's batch setting, trigger `schedule`, their starts spread over
 * the night. Each site is claimed by moving its next scan date first, so a
 * tick that runs twice starts nothing twice.
 */
export async function runScanTick(
  ctx: AppContext,
): Promise<{ started: number; refused: { siteId: number; reason: string }[] }> {
  const now = ctx.clock.now();
  const due = await ctx.db
    .selectFrom('sites')
    .selectAll()
    .where('scheduleEnabled', '=', true)
    .where('nextScanAt', '<=', now)
    .orderBy('nextScanAt')
    .orderBy('id')
    .execute();
  const spreadMs = ctx.config.scans.scheduleSpreadMinutes * 60_000;
  const refused: { siteId: number; reason: string }[] = [];
  let started = 0;
  for (const [i, site] of due.entries()) {
    const previous = site.nextScanAt as Date;
    let next = new Date(previous.getTime() + site.scanFrequencyDays * DAY_MS);
    // Nights missed (workers down) are not caught up one by one: the next scan is the next due night.
    while (next <= now) next = new Date(next.getTime() + site.scanFrequencyDays * DAY_MS);
    const claimed = await ctx.db
      .updateTable('sites')
      .set({ nextScanAt: next })
      .where('id', '=', site.id)
      .where('nextScanAt', '=', previous)
      .where('scheduleEnabled', '=', true)
      .executeTakeFirst();
    if (Number(claimed.numUpdatedRows) === 0) continue;
    const delayMs = due.length > 1 ? Math.round((spreadMs * i) / due.length) : 0;
    try {
      await startScan(
        ctx,
        site,
        site.createdBy,
        { saved: true, batch: site.scheduleBatch, label: 'Scheduled scan' },
        'schedule',
        { delayMs },
      );
      started++;
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused.push({ siteId: site.id, reason: err.message });
      ctx.logger.warn({ siteId: site.id, reason: err.message }, 'scheduled scan not started');
    }
  }
  return { started, refused };
}
