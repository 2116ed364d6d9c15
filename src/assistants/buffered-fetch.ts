import zlib from 'node:zlib';
import { Agent, type Dispatcher } from 'undici';

/**
 * The fetch the adapters and SDKs call assistants with, on undici's
 * dispatcher (the layer its `request` and Node's own fetch are built on) and
 * one keep-alive agent: the body is read whole (bounded) as undici hands it
 * over, and handed back as a `Response`. `request` wraps each response in a
 * stream and an async resource, a sixth of the client's CPU per call. Global fetch (its WHATWG layer: request objects, header lists,
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

type ReceivedHeaders = BufferedResponse['headerFields'];

/**
 * One request's response, read whole as undici hands it over (headers, then
 * chunks): no response stream, event listeners or promise per chunk between
 * the socket and the caller. Its first outcome settles `send`; later ones are
 * dropped. Methods on a class, not closures: one shape for every call.
 */
class BufferingHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | null = null;
  private status = 0;
  private received: ReceivedHeaders = {};
  private readonly chunks: Buffer[] = [];
  private seen = 0;
  private redirect = false;
  private settled = false;
  private readonly onAbort: (() => void) | null;
  private readonly signal: AbortSignal | undefined;
  private readonly maxBytes: number;
  private readonly tooLarge: () => Error;
  private readonly resolve: (res: BufferedResponse | 'redirect') => void;
  private readonly reject: (err: unknown) => void;

  constructor(
    opts: Pick<SendOptions, 'signal' | 'maxBytes' | 'tooLarge'>,
    resolve: (res: BufferedResponse | 'redirect') => void,
    reject: (err: unknown) => void,
  ) {
    const signal = opts.signal;
    this.signal = signal;
    this.maxBytes = opts.maxBytes;
    this.tooLarge = opts.tooLarge;
    this.resolve = resolve;
    this.reject = reject;
    // An abort rejects at once with the signal's reason, as fetch does, and stops the request wherever it is.
    this.onAbort = signal
      ? () => {
          const reason: unknown = signal.reason;
          this.fail(reason);
          this.controller?.abort(reason as Error);
        }
      : null;
    if (signal && this.onAbort) signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(this.signal.reason as Error);
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: ReceivedHeaders): void {
    // 1xx: informational, the response proper follows.
    if (statusCode < 200) return;
    this.status = statusCode;
    this.received = headers;
    if (REDIRECTS.has(statusCode) && headers.location) {
      // Its body is read and dropped (the connection is kept); the caller hands the request to fetch.
      this.redirect = true;
      this.settle('redirect');
    } else if (Number(headers['content-length'] ?? 0) > this.maxBytes) {
      this.fail(this.tooLarge());
      controller.abort(new RangeError('over the cap'));
    }
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) {
      if (!this.redirect) this.fail(this.tooLarge());
      controller.abort(new RangeError('over the cap'));
    } else if (!this.redirect) this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.settled) return;
    let body: Buffer;
    try {
      body = decode(
        this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks),
        headerValue(this.received['content-encoding']) ?? undefined,
        this.maxBytes,
      );
    } catch (err) {
      // zlib's maxOutputLength throws a RangeError: the body decodes past the cap.
      this.fail(err instanceof RangeError ? this.tooLarge() : new TypeError('fetch failed', { cause: err }));
      return;
    }
    const received = this.received;
    this.settle({
      status: this.status,
      headers: { get: (name) => headerValue(received[name.toLowerCase()]) },
      headerFields: received,
      body,
    });
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    this.failed(err);
  }

  /** The request failed: an abort with the signal's reason; anything else is fetch's TypeError with the cause kept, 'fetch failed' before a response and 'terminated' within its body. */
  failed(err: unknown): void {
    this.fail(
      this.signal?.aborted
        ? this.signal.reason
        : new TypeError(this.status ? 'terminated' : 'fetch failed', { cause: err }),
    );
  }

  private settle(res: BufferedResponse | 'redirect'): void {
    if (this.settled) return;
    this.settled = true;
    this.stopListening();
    this.resolve(res);
  }

  private fail(err: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stopListening();
    this.reject(err);
  }

  private stopListening(): void {
    if (this.onAbort) this.signal?.removeEventListener('abort', this.onAbort);
  }
}

/**
 * One request over undici's dispatcher (the layer its `request` and Node's
 * own fetch are built on), the body read whole and bounded: `maxBytes`
 * declared, received or decoded, past which it rejects with `tooLarge()`. A
 * redirect gives `'redirect'`: the caller hands the request to fetch.
 */
export function send(url: string, opts: SendOptions): Promise<BufferedResponse | 'redirect'> {
  const { signal } = opts;
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  const headers = opts.headers;
  const payload = opts.body;
  if (payload !== undefined) {
    headers['content-length'] ??= String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength);
    if (typeof payload === 'string') headers['content-type'] ??= 'text/plain;charset=UTF-8';
  }
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    return Promise.reject(new TypeError('fetch failed', { cause: err }));
  }
  return new Promise((resolve, reject) => {
    const handler = new BufferingHandler(opts, resolve, reject);
    try {
      dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.pathname + target.search,
          method: opts.method as Dispatcher.HttpMethod,
          headers,
          body: payload,
        },
        handler,
      );
    } catch (err) {
      handler.failed(err);
    }
  });
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
