import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeLog, LogDecodeError } from '../../../src/logs/decode.ts';
import { AddressRanges } from '../../../src/logs/ranges.ts';
import { ERRORS_KEPT, LogReader, MAX_LINE_BYTES } from '../../../src/logs/reader.ts';
import type { LogFormatChoice } from '../../../src/logs/record.ts';

/**
 * Logs a tenant controls: an endless line, a line of 1 MB, binary garbage,
 * 30% malformed lines, a truncated gzip file, a gzip bomb, pathological
 * escapes and nesting. Each is read in bounded time (generous deadlines:
 * the work is linear and takes milliseconds) with its lines counted or
 * skipped, never thrown.
 */

const GOOD = (i: number) =>
  `198.51.100.${i % 100} - - [20/Nov/2026:08:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} +0000] "GET /page-${i} HTTP/1.1" 200 512 "-" "Mozilla/5.0 (compatible; GPTBot/1.2; +https://openai.com/gptbot)"`;

function reader(format: LogFormatChoice = 'auto') {
  return new LogReader({
    format,
    ranges: new AddressRanges([]),
    oldest: Date.UTC(2026, 0, 1),
    newest: Date.UTC(2027, 0, 1),
    windowNote: 'outside the window',
  });
}

async function* chunks(buffer: Buffer, size = 64 * 1024) {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

async function readAll(source: AsyncIterable<Buffer>, format: LogFormatChoice = 'auto') {
  const r = reader(format);
  let error: unknown = null;
  try {
    for await (const chunk of decodeLog(source)) r.push(chunk);
    r.end();
  } catch (err) {
    error = err;
  }
  return { r, events: r.take(), error };
}

const timed = async <T>(fn: () => Promise<T>) => {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
};

describe('hostile logs', () => {
  it('skips a line of 1 MB with its line number and reads the lines around it', async () => {
    const log = Buffer.from([GOOD(1), `${GOOD(2)} ${'x'.repeat(1_000_000)}`, GOOD(3), ''].join('\n'));
    const { value, ms } = await timed(() => readAll(chunks(log)));
    expect(value.error).toBeNull();
    expect(value.events.map((e) => e.path)).toEqual(['/page-1', '/page-3']);
    expect(value.r.errors).toEqual([{ line: 2, reason: `longer than ${MAX_LINE_BYTES / 1024} KiB; not read` }]);
    expect({ lines: value.r.lines, skipped: value.r.skipped }).toEqual({ lines: 3, skipped: 1 });
    expect(ms).toBeLessThan(2000);
  });

  it('skips a 1 MB line sent in one piece (a posted body) as well as one spread over chunks', async () => {
    const log = Buffer.from([GOOD(1), 'y'.repeat(1_000_000), GOOD(3)].join('\n'));
    const whole = await readAll(chunks(log, log.length));
    expect(whole.events.map((e) => e.path)).toEqual(['/page-1', '/page-3']);
    expect(whole.r.errors.map((e) => e.line)).toEqual([2]);
  });

  it('reads an endless line (50 MB, no newline) in flat memory', async () => {
    const piece = Buffer.alloc(1 << 20, 'z');
    async function* endless() {
      for (let i = 0; i < 50; i++) yield piece;
    }
    const before = process.memoryUsage().heapUsed;
    const { value, ms } = await timed(() => readAll(endless()));
    expect(value.r.lines).toBe(1);
    expect(value.r.skipped).toBe(1);
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(40 << 20);
    expect(ms).toBeLessThan(5000);
  });

  it('counts binary garbage as skipped lines, never throws', async () => {
    const garbage = randomBytes(4 << 20);
    const log = Buffer.concat([Buffer.from(`${GOOD(1)}\n`), garbage, Buffer.from(`\n${GOOD(2)}\n`)]);
    const { value, ms } = await timed(() => readAll(chunks(log)));
    expect(value.error).toBeNull();
    expect(value.events.map((e) => e.path)).toEqual(['/page-1', '/page-2']);
    expect(value.r.skipped).toBeGreaterThan(0);
    expect(value.r.lines).toBe(value.r.skipped + value.r.events + value.r.other);
    expect(ms).toBeLessThan(5000);
  });

  it('reads a log with 30% malformed lines: the rest counted, a sample of refusals with line numbers', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) =>
      i % 10 < 3
        ? ['garbage', '{"not": "a request"}', '1.2.3.4 - - [99/Xyz/2026:00:00:00 +0000] "GET / HTTP/1.1" 200 1'][i % 3]
        : GOOD(i),
    );
    const { r, events } = await readAll(chunks(Buffer.from(lines.join('\n'))));
    expect(events).toHaveLength(7000);
    expect(r.skipped).toBe(3000);
    expect(r.errors).toHaveLength(ERRORS_KEPT);
    expect(r.errors.slice(0, 3)).toEqual([
      { line: 1, reason: 'combined: not a combined log line: no client address' },
      { line: 2, reason: 'JSON: a JSON object without request fields (time, path, status)' },
      { line: 3, reason: 'combined: the time is not written dd/Mon/yyyy:HH:MM:SS +zone' },
    ]);
  });

  it('reads a truncated gzip file up to the cut, then says it is truncated', async () => {
    const whole = gzipSync(Buffer.from(Array.from({ length: 20_000 }, (_, i) => GOOD(i)).join('\n')));
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    const { r, events, error } = await readAll(chunks(cut));
    expect(error).toBeInstanceOf(LogDecodeError);
    expect((error as Error).message).toMatch(/truncated/);
    expect(events.length).toBeGreaterThan(1000);
    expect(events.length).toBeLessThan(20_000);
    expect(r.skipped).toBeLessThanOrEqual(1);
  });

  it('refuses a gzip bomb at the decoded cap', async () => {
    const bomb = gzipSync(Buffer.alloc(64 << 20));
    const { value, ms } = await timed(async () => {
      try {
        for await (const chunk of decodeLog(chunks(bomb), { maxBytes: 8 << 20 })) void chunk;
        return null;
      } catch (err) {
        return err;
      }
    });
    expect(bomb.length).toBeLessThan(100_000);
    expect(value).toBeInstanceOf(LogDecodeError);
    expect((value as Error).message).toMatch(/more than 8 MB/);
    expect(ms).toBeLessThan(2000);
  });

  it('reads pathological quoting and nesting in linear time', async () => {
    const escapes = `1.2.3.4 - - [20/Nov/2026:08:00:00 +0000] "GET /${'\\"'.repeat(100_000)} HTTP/1.1" 200 1 "-" "${'\\\\"'.repeat(50_000)}`;
    const nested = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const quotes = `1.2.3.4 - - [20/Nov/2026:08:00:00 +0000] ${'"'.repeat(400_000)}`;
    const { value, ms } = await timed(() =>
      readAll(chunks(Buffer.from([escapes, nested, quotes, GOOD(1)].join('\n')))),
    );
    expect(value.error).toBeNull();
    expect(value.events.map((e) => e.path)).toEqual(['/page-1']);
    expect(ms).toBeLessThan(2000);
  });
});
