/** The operator CLI's progress: a bar, a duration, and one line on stderr that is redrawn as work goes on. */

export function bar(fraction: number, width = 30): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

export function duration(seconds: number | null): string {
  if (seconds === null) return '--';
  if (seconds < 60) return `${seconds}s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m}m ${seconds % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

/**
 * One progress line on stderr: redrawn in place on a terminal; on a pipe or
 * a log, written again only when it changes, at most once a second.
 */
export function progressLine(out: NodeJS.WriteStream = process.stderr) {
  const tty = out.isTTY === true;
  let shown = '';
  let wrote = 0;
  let pending: string | null = null;
  return {
    draw(text: string) {
      if (text === shown) return;
      if (tty) {
        out.write(`\r${text.padEnd(shown.length)}`);
        shown = text;
        return;
      }
      if (Date.now() - wrote < 1000) {
        pending = text;
        return;
      }
      out.write(`${text}\n`);
      shown = text;
      pending = null;
      wrote = Date.now();
    },
    /** Ends the line (a terminal's cursor moves on; a pipe gets the last state). */
    end() {
      if (tty && shown) out.write('\n');
      else if (!tty && pending !== null && pending !== shown) out.write(`${pending}\n`);
    },
  };
}
