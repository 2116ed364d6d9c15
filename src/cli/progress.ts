/** The operator CLI's progress line on stderr: redrawn in place on a terminal, one line per change otherwise. */

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

export interface ProgressLine {
  draw(line: string): void;
  end(): void;
}

export function progressLine(out: NodeJS.WriteStream = process.stderr): ProgressLine {
  const tty = out.isTTY === true;
  let last = '';
  return {
    draw(line) {
      if (line === last) return;
      if (tty) out.write(`\r${line.padEnd(last.length)}`);
      else out.write(`${line}\n`);
      last = line;
    },
    end() {
      if (tty && last) out.write('\n');
    },
  };
}
