import http from 'node:http';
import https from 'node:https';
import zlib from 'node:zlib';

/**
 * The fetch the adapters and SDKs call assistants with, on node:http(s) and
 * their keep-alive agents: the body is read whole (bounded) and handed back
 * as a `Response`. Global fetch (undici's WHATWG pipeline: request objects,
 * header lists, web streams) cost twice the CPU of node:http per call, and
 * at scale a scan's bill is CPU (bench/README.md "scan"). Anything this
 * does not cover (a Request object, a FormData or stream body, a redirect)
 * goes to `fallback`, so behaviour never depends on which path ran.
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
    else if (coding === 'deflate') out = ((out[0] ?? 0) & 0x0f) === 0x08 ? zlib.inflateSync(out, options) : zlib.inflateRawSync(out, options);
    else if (coding === 'br') out = zlib.brotliDecompressSync(out, options);
    else if (coding === 'zstd') out = zlib.zstdDecompressSync(out, options);
  }
  return out;
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/** A response read whole: what `send` gives back. */
export interface BufferedResponse {
  status: number;
  statusText: string;
  rawHeaders: string[];
  headers: { get(name: string): string | null };
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

/**
 * One request over node:http(s), its body read whole and bounded: `maxBytes`
 * declared, received or decoded, past which it rejects with `tooLarge()`.
 * A redirect gives `'redirect'`: the caller hands the request to fetch.
 */
export function send(url: string, opts: SendOptions): Promise<BufferedResponse | 'redirect'> {
  const { signal, maxBytes, tooLarge } = opts;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const headers = opts.headers;
    const payload = opts.body;
    if (payload !== undefined) {
      headers['content-length'] ??= String(typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength);
      if (typeof payload === 'string') headers['content-type'] ??= 'text/plain;charset=UTF-8';
    }
    const secure = url.slice(0, 6).toLowerCase() === 'https:';
    const req = (secure ? https : http).request(url, { method: opts.method, headers, agent: secure ? https.globalAgent : http.globalAgent });
    let settled = false;
    const settle = () => {
      settled = true;
      signal?.removeEventListener('abort', onAbort);
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settle();
      req.destroy();
      reject(signal?.aborted ? signal.reason : err);
    };
    const onAbort = () => fail(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => fail(new TypeError('fetch failed', { cause: err })));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && res.headers.location) {
        res.resume();
        settle();
        return resolve('redirect');
      }
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on('error', (err) => fail(new TypeError('terminated', { cause: err })));
      res.on('close', () => {
        if (!res.complete) fail(new TypeError('terminated', { cause: Object.assign(new Error('the connection closed before the body ended'), { code: 'ECONNRESET' }) }));
      });
      res.on('end', () => {
        if (settled) return;
        let body: Buffer;
        try {
          body = decode(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks), res.headers['content-encoding'], maxBytes);
        } catch (err) {
          return fail(err instanceof RangeError ? tooLarge() : new TypeError('fetch failed', { cause: err }));
        }
        settle();
        const received = res.headers;
        resolve({
          status,
          statusText: res.statusMessage ?? '',
          rawHeaders: res.rawHeaders,
          headers: {
            get: (name) => {
              const v = received[name.toLowerCase()];
              return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
            },
          },
          body,
        });
      });
    });
    req.end(payload);
  });
}

/**
 * A fetch over `send`: the body read whole (at most `maxBytes`, else
 * `tooLarge()`) and handed back as a `Response`.
 */
export function bufferedFetch(maxBytes: number, tooLarge: () => Error, fallback: typeof fetch): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : null;
    const body = init?.body;
    const plainBody = body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ArrayBuffer;
    if (url === null || !plainBody || !/^https?:\/\//i.test(url) || (init?.redirect !== undefined && init.redirect !== 'follow')) return fallback(input, init);
    const payload = body === undefined || body === null ? undefined : body instanceof ArrayBuffer ? new Uint8Array(body) : body;
    const method = init?.method ?? 'GET';
    const res = await send(url, { method, headers: headerRecord(init?.headers), body: payload, signal: init?.signal ?? undefined, maxBytes, tooLarge });
    // Assistant APIs do not redirect; fetch's own rules (method changes, limits) handle the rare one.
    if (res === 'redirect') return fallback(input, init);
    const noBody = NULL_BODY.has(res.status) || method.toUpperCase() === 'HEAD';
    return new Response(noBody ? null : res.body, { status: res.status, statusText: res.statusText, headers: responseHeaders(res.rawHeaders) });
  };
}
