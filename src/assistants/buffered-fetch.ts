import zlib from 'node:zlib';
import { Agent, request, type Dispatcher } from 'undici';

/**
 * The fetch the adapters and SDKs call assistants with, on undici's
 * `request` (the dispatcher API Node's own fetch is built on) and one
 * keep-alive agent: the body is read whole (bounded) and handed back as a
 * `Response`. Global fetch (its WHATWG layer: request objects, header lists,
 * web streams) cost twice the CPU per call, node:http a third more, and at
 * scale a scan's bill is CPU (bench/README.md "scan"). Anything this does
 * not cover (a Request object, a FormData or stream body, a redirect) goes
 * to `fallback`, so behaviour never depends on which path ran.
 *
 * Like fetch: network failures reject with TypeError('fetch failed') whose
 * cause carries the socket error code; an abort rejects with the signal's
 * reason; compressed bodies are decoded; the status and headers are as sent.
 */

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

type HeadersLike = RequestInit['headers'];

function headerRecord(init: HeadersLike): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  if (init instanceof Headers) init.forEach((value, name) => (out[name] = value));
  else if (Array.isArray(init)) for (const [name, value] of init) out[name.toLowerCase()] = value;
  else for (const name of Object.keys(init)) out[name.toLowerCase()] = init[name] as string;
  return out;
}

/** The body decoded as fetch would (gzip, deflate, br, zstd), never past `maxBytes`; throws RangeError past it. */
function decode(body: Buffer, encoding: string | undefined, maxBytes: number): Buffer {
  if (!encoding) return body;
  let out = body;
  const options = { maxOutputLength: Math.max(1, maxBytes) };
  for (const coding of encoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') out = zlib.gunzipSync(out, options);
    // fetch accepts both zlib-wrapped and raw deflate.
    else if (coding === 'deflate')
      out = ((out[0] ?? 0) & 0x0f) === 0x08 ? zlib.inflateSync(out, options) : zlib.inflateRawSync(out, options);
    else if (coding === 'br') out = zlib.brotliDecompressSync(out, options);
    else if (coding === 'zstd') out = zlib.zstdDecompressSync(out, options);
  }
  return out;
}

function responseHeaders(received: BufferedResponse['headerFields']): Headers {
  const headers = new Headers();
  for (const name in received) {
    const value = received[name];
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.append(name, value);
  }
  return headers;
}

/** A response read whole: what `send` gives back. */
export interface BufferedResponse {
  status: number;
  headers: { get(name: string): string | null };
  /** The headers as received: lower-case names, a header sent several times as an array. */
  headerFields: Record<string, string | string[] | undefined>;
  /** Decoded (gzip, deflate, br, zstd). */
  body: Buffer;
}

export interface SendOptions {
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  signal: AbortSignal | undefined;
  maxBytes: number;
  tooLarge: () => Error;
}

/** Keep-alive connections to every assistant host, shared by every call of the process. */
const dispatcher = new Agent();

/**
 * One request over undici's `request` (its dispatcher API, below fetch), the
 * body read whole and bounded: `maxBytes` declared, received or decoded,
 * past which it rejects with `tooLarge()`. A redirect gives `'redirect'`: the
 * caller hands the request to fetch.
 */
export async function send(url: string, opts: SendOptions): Promise<BufferedResponse | 'redirect'> {
  const { signal, maxBytes, tooLarge } = opts;
  if (signal?.aborted) throw signal.reason;
  const headers = opts.headers;
  const payload = opts.body;
  if (payload !== undefined) {
    headers['content-length'] ??= String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength);
    if (typeof payload === 'string') headers['content-type'] ??= 'text/plain;charset=UTF-8';
  }
  // An abort rejects with the signal's reason, as fetch does; anything else is fetch's TypeError with the cause kept.
  const failure = (err: unknown, message: string) =>
    signal?.aborted ? signal.reason : new TypeError(message, { cause: err });
  // Reading and decoding signal the cap with a RangeError (zlib's maxOutputLength throws one too).
  const bodyFailure = (err: unknown, message: string) =>
    err instanceof RangeError && !signal?.aborted ? tooLarge() : failure(err, message);
  let res: Dispatcher.ResponseData;
  try {
    res = await request(url, {
      method: opts.method as Dispatcher.HttpMethod,
      headers,
      body: payload,
      signal,
      dispatcher,
    });
  } catch (err) {
    throw failure(err, 'fetch failed');
  }
  const { statusCode: status, headers: received, body: stream } = res;
  if (REDIRECTS.has(status) && received.location) {
    await stream.dump().catch(() => undefined);
    return 'redirect';
  }
  if (Number(received['content-length'] ?? 0) > maxBytes) {
    discard(stream);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let seen = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen <= maxBytes) chunks.push(chunk);
        else {
          discard(stream);
          reject(new RangeError('over the cap'));
        }
      });
      stream.on('error', reject);
      stream.on('end', resolve);
    });
  } catch (err) {
    throw bodyFailure(err, 'terminated');
  }
  let body: Buffer;
  try {
    body = decode(
      chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks),
      headerValue(received['content-encoding']) ?? undefined,
      maxBytes,
    );
  } catch (err) {
    throw bodyFailure(err, 'fetch failed');
  }
  return {
    status,
    headers: { get: (name) => headerValue(received[name.toLowerCase()]) },
    headerFields: received,
    body,
  };
}

/** Drops a body unread. undici's body emits an AbortError when destroyed: with nobody listening, that would be an uncaught exception. */
function discard(stream: Dispatcher.ResponseData['body']): void {
  stream.on('error', () => undefined);
  stream.destroy();
}

const headerValue = (v: string | string[] | undefined): string | null =>
  v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;

/**
 * A fetch over `send`: the body read whole (at most `maxBytes`, else
 * `tooLarge()`) and handed back as a `Response`.
 */
export function bufferedFetch(maxBytes: number, tooLarge: () => Error, fallback: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    const body = init?.body;
    const plainBody =
      body === undefined ||
      body === null ||
      typeof body === 'string' ||
      body instanceof Uint8Array ||
      body instanceof ArrayBuffer;
    if (
      url === null ||
      !plainBody ||
      !/^https?:\/\//i.test(url) ||
      (init?.redirect !== undefined && init.redirect !== 'follow')
    )
      return fallback(input, init);
    const payload =
      body === undefined || body === null ? undefined : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
    const method = init?.method ?? 'GET';
    const res = await send(url, {
      method,
      headers: headerRecord(init?.headers),
      body: payload,
      signal: init?.signal ?? undefined,
      maxBytes,
      tooLarge,
    });
    // Assistant APIs do not redirect; fetch's own rules (method changes, limits) handle the rare one.
    if (res === 'redirect') return fallback(input, init);
    const noBody = NULL_BODY.has(res.status) || method.toUpperCase() === 'HEAD';
    return new Response(noBody ? null : res.body, { status: res.status, headers: responseHeaders(res.headerFields) });
  };
}
