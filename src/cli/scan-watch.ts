import type { AppContext } from '../context.ts';
import type { SiteRow } from '../db/schema.ts';
import { findScan, liveScan, serializeScan } from '../domain/scans/scans.ts';

const FINAL = ['done', 'failed', 'cancelled'];

function bar(fraction: number, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

function duration(seconds: number | null): string {
  if (seconds === null) return '--';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m ${seconds % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * Operator view of a scan: a live progress bar on stderr (answers, cost,
 * pace, time left) until the scan ends; returns the final scan for stdout.
 */
export async function watchScan(ctx: AppContext, site: SiteRow, scanId: number | null, out: NodeJS.WriteStream = process.stderr) {
  const tty = out.isTTY === true;
  let lastLine = '';
  for (;;) {
    const { run } = await liveScan(ctx, site);
    const id = scanId ?? run?.id ?? null;
    if (id === null) return { scan: null, message: 'no scan is running on this project' };
    if (!run || run.id !== id) {
      const scan = serializeScan(await findScan(ctx, site.id, id));
      if (FINAL.includes(scan.status)) {
        if (tty) out.write('\n');
        return { scan };
      }
    } else {
      const done = run.answersDone + run.answersFailed;
      const line = `${bar(run.answersTotal ? done / run.answersTotal : 0)} ${done}/${run.answersTotal} answers  ${run.cost}  ${run.pacePerMinute ?? '--'}/min  ${duration(run.timeLeftSeconds)} left  (${run.status})`;
      if (tty) out.write(`\r${line.padEnd(lastLine.length)}`);
      else if (line !== lastLine) out.write(`${line}\n`);
      lastLine = line;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}
