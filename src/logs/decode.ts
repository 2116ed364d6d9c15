import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * A log's bytes as sent: plain, or a gzip file (known by its magic bytes,
 * whatever it is called), decoded as it streams. A truncated or corrupt
 * gzip file is a `LogDecodeError` saying so, after the lines before the
 * damage were read; `maxBytes` stops a gzip bomb at a bound of decoded
 * bytes.
 */

export class LogDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogDecodeError';
  }
}

const noop = () => undefined;
const isGzip = (chunk: Buffer) => chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b;

function decodeError(err: unknown): Error {
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code === 'Z_BUF_ERROR')
    return new LogDecodeError('the gzip file ends early (truncated); the lines before the cut were read');
  if (code.startsWith('Z_'))
    return new LogDecodeError(`the gzip data is corrupt (${(err as Error).message}); the lines before it were read`);
  return err as Error;
}

export async function* decodeLog(
  source: AsyncIterable<Buffer>,
  options: { maxBytes?: number } = {},
): AsyncGenerator<Buffer> {
  const max = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const it = source[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.length === 0) first = await it.next();
  if (first.done) return;
  const head = first.value;
  async function* all() {
    yield head;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  let size = 0;
  const capped = (chunk: Buffer) => {
    size += chunk.length;
    if (size > max)
      throw new LogDecodeError(
        `the log decodes to more than ${Math.round(max / 2 ** 20)} MB, the most read from one piece; send it in smaller pieces`,
      );
    return chunk;
  };
  if (!isGzip(head)) {
    for await (const chunk of all()) yield capped(chunk);
    return;
  }
  try {
    for await (const chunk of pipeline(Readable.from(all()), zlib.createGunzip(), noop)) yield capped(chunk as Buffer);
  } catch (err) {
    throw decodeError(err);
  }
}
