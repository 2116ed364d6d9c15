import type { AppContext } from '../context.ts';
import { bar, duration, progressLine } from './progress.ts';
import type { SiteRow } from '../db/schema.ts';
import { findScan, liveScan } from '../domain/scans/index.ts';
import { serializeScan } from '../domain/common/index.ts';

const FINAL = ['done', 'failed', 'cancelled'];

/**
 * Operator view of a scan: a live progress bar on stderr (answers, cost,
 * pace, time left) until the scan ends; returns the final scan for stdout.
 */
export async function watchScan(
  ctx: AppContext,
  site: SiteRow,
  scanId: number | null,
  out: NodeJS.WriteStream = process.stderr,
) {
  const progress = progressLine(out);
  for (;;) {
    const { run } = await liveScan(ctx, site);
    const id = scanId ?? run?.id ?? null;
    if (id === null) return { scan: null, message: 'no scan is running on this project' };
    if (!run || run.id !== id) {
      const scan = serializeScan(await findScan(ctx, site.id, id));
      if (FINAL.includes(scan.status)) {
        progress.end();
        return { scan };
      }
    } else {
      const done = run.answersDone + run.answersFailed;
      const line = `${bar(run.answersTotal ? done / run.answersTotal : 0)} ${done}/${run.answersTotal} answers  ${run.cost}  ${run.pacePerMinute ?? '--'}/min  ${duration(run.timeLeftSeconds)} left  (${run.status})`;
      progress.draw(line);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
