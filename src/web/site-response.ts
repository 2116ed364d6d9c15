import type { IncomingMessage } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';
import { collect } from './collect.ts';
import { SiteFetchError } from './fetch-error.ts';
import type { FetchOptions } from './site-fetch.ts';

/**
 * The body of one answer from a customer's site: decoded (gzip, deflate,
 * br; a gzip file unwrapped when asked), held to its size cap on the decoded
 * bytes (so a gzip bomb stops at the cap), and tied to the fetch's time
 * limit until it is read or discarded.
 */

const noop = () => undefined;
const mb = (bytes: number) =>
  bytes >= 1 << 20 ? `${Math.round((bytes / (1 << 20)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;

export interface SiteResponse {
  /** The URL that answered, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  /** The decoded body, read once; throws SiteFetchError past a limit. */
  body(): AsyncGenerator<Buffer>;
  /** The whole body as UTF-8 text. */
  text(): Promise<string>;
  /** The whole body in one array of its own (not a view of a shared buffer), so it can be handed to a thread. */
  bytes(): Promise<Uint8Array>;
  /** Whether the body was cut at maxBytes (overflow: truncate), once read. */
  readonly truncated: boolean;
  /** Closes the connection without reading the body. */
  discard(): void;
}

function decoderFor(
  encoding: string | undefined,
  url: string,
): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === '' || e === 'identity') return null;
  if (e === 'gzip' || e === 'x-gzip') return zlib.createGunzip();
  if (e === 'deflate') return zlib.createInflate();
  if (e === 'br') return zlib.createBrotliDecompress();
  throw new SiteFetchError('encoding', url, `${url} answered in an encoding we did not ask for (${e})`);
}

const isGzip = (chunk: Buffer) => chunk.length >= 2 && chunk[0] === 0x1f && chunk[1] === 0x8b;

/** Passes a stream through gunzip when it starts with the gzip magic bytes. */
async function* gunzipIfGzip(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const it = source[Symbol.asyncIterator]();
  const first = await it.next();
  if (first.done) return;
  async function* all() {
    yield first.value;
    for (let n = await it.next(); !n.done; n = await it.next()) yield n.value;
  }
  if (!isGzip(first.value)) return yield* all();
  for await (const chunk of pipeline(Readable.from(all()), zlib.createGunzip(), noop)) yield chunk as Buffer;
}

export function siteResponse(
  url: string,
  res: IncomingMessage,
  options: FetchOptions,
  state: { failure: SiteFetchError | null },
  finish: () => void,
  failed: (err: unknown) => SiteFetchError,
): SiteResponse {
  const overflow = options.overflow ?? 'error';
  const declared = Number(res.headers['content-length']);
  const encoding = res.headers['content-encoding'];
  const tooLarge = () =>
    new SiteFetchError('too-large', url, `${url} is larger than ${mb(options.maxBytes)}, the most read for it`);
  let truncated = false;
  let used = false;

  async function* body(): AsyncGenerator<Buffer> {
    if (used) throw new Error('a response body is read once');
    used = true;
    try {
      if (overflow === 'error' && !encoding && Number.isFinite(declared) && declared > options.maxBytes)
        throw tooLarge();
      const decoder = decoderFor(encoding, url);
      let decoded: AsyncIterable<Buffer> = res;
      if (decoder) {
        let raw = 0;
        const counted = async function* () {
          for await (const chunk of res as AsyncIterable<Buffer>) {
            raw += chunk.length;
            // Compressed bytes past the cap mean decoded ones past it too: stop the download early.
            if (raw > options.maxBytes && overflow === 'error') throw tooLarge();
            yield chunk;
          }
        };
        decoded = pipeline(Readable.from(counted()), decoder, noop);
      }
      const source = options.gunzipFiles ? gunzipIfGzip(decoded) : decoded;
      let size = 0;
      for await (const chunk of source) {
        if (size + chunk.length > options.maxBytes) {
          if (overflow === 'error') throw tooLarge();
          truncated = true;
          if (options.maxBytes > size) yield chunk.subarray(0, options.maxBytes - size);
          return;
        }
        size += chunk.length;
        yield chunk;
      }
      if (state.failure) throw state.failure;
    } catch (err) {
      throw failed(err);
    } finally {
      finish();
      res.destroy();
    }
  }

  return {
    url,
    status: res.statusCode ?? 0,
    contentType: typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : null,
    body,
    async text() {
      const chunks: Buffer[] = [];
      for await (const chunk of body()) chunks.push(chunk);
      return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
    },
    bytes: () => collect(body()),
    get truncated() {
      return truncated;
    },
    discard() {
      finish();
      res.destroy();
    },
  };
}
