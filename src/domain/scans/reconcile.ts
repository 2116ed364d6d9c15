import type { AppContext } from '../../context.ts';
import { ACTIVE_SCAN_STATUSES } from '../common/index.ts';
import { endScan, failScan } from './run.ts';

/**
 * The reconciler: no scan is left `queued`, `running` or `cancelling` with
 * no live job behind it (a worker killed more often than BullMQ's stalled
 * count allows, Redis restarted without its data, an exhausted handler that
 * never ran). Run every minute by the `scan-reconcile` job. Each repair is
 * what the scan's own rules do: a resumed scan skips answers already stored
 * and charges nothing twice.
 */
export interface Reconciled {
  resumed: number[];
  failed: number[];
  cancelled: number[];
}

export async function runScanReconcile(ctx: AppContext): Promise<Reconciled> {
  // A scan inserted a moment ago is queued right after its row commits: give it time.
  const before = new Date(ctx.clock.now().getTime() - 2 * ctx.config.jobLockMs);
  const scans = await ctx.db
    .selectFrom('scans')
    .select(['id', 'siteId', 'orgId', 'status'])
    .where('status', 'in', ACTIVE_SCAN_STATUSES)
    .where('createdAt', '<', before)
    .orderBy('id')
    .execute();
  const out: Reconciled = { resumed: [], failed: [], cancelled: [] };
  for (const scan of scans) {
    const jobId = `scan-${scan.id}`;
    const state = await ctx.jobs.state('scan', jobId);
    if (state === 'live') continue;
    if (scan.status === 'cancelling') {
      await endScan(ctx, { scanId: scan.id, siteId: scan.siteId, orgId: scan.orgId }, null);
      out.cancelled.push(scan.id);
    } else if (state === 'exhausted') {
      await failScan(ctx, scan.id, 'the scan job failed its last attempt');
      out.failed.push(scan.id);
    } else {
      if (state === 'ended') await ctx.jobs.remove('scan', jobId);
      await ctx.jobs.enqueue('scan', { scanId: scan.id }, { jobId });
      out.resumed.push(scan.id);
    }
  }
  if (out.resumed.length + out.failed.length + out.cancelled.length > 0)
    ctx.logger.warn(out, 'reconciled scans with no live job');
  return out;
}
