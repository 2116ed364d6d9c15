import { isIPv6 } from 'node:net';
import { Pool } from 'undici';
import { SiteFetchError } from './fetch-error.ts';
import type { SiteFetcher } from './site-fetch.ts';

/**
 * One POST of a webhook delivery, through the site-fetch guard
 * (./site-fetch.ts `target`): https on 443 to public addresses only, the
 * socket connecting to the address that was checked (so DNS cannot answer
 * otherwise in between), or a SITE_FETCH_MAP origin. No redirect is
 * followed: a receiver that answers 3xx has not taken the delivery. One
 * deadline covers resolving, connecting, sending, the status and the first
 * bytes of the answer; the rest of the answer is never read.
 *
 * Connections are kept a few seconds per checked address and TLS name, by
 * the poster (the context's `webhookPoster`, closed with it; many webhooks
 * share a receiver, e.g. hooks.slack.com): every delivery
 * still resolves and checks its host first, and only then takes a
 * connection to the address that check answered, so a kept connection
 * never reaches an address the guard would refuse now.
 */

export interface PostAnswer {
  status: number;
  /** The first `keepBytes` of the answer, decoded as UTF-8 (NUL removed: Postgres text refuses it). */
  head: string;
}

export interface PostOptions {
  timeoutMs: number;
  connectTimeoutMs: number;
  /** How much of the answer to read and keep. */
  keepBytes: number;
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** Idle connections close after this long. */
const KEEP_ALIVE_MS = 4_000;
/** Checked addresses with connections kept at once; the oldest is closed past it. */
const POOLS_KEPT = 256;

/** Webhook deliveries' POSTs: the guard and the connections kept to receivers. The process has one (its context's). */
export interface WebhookPoster {
  /** One POST of a delivery through the guard; throws SiteFetchError. */
  post(rawUrl: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostAnswer>;
  /** Closes every kept connection (the context closing); a later POST opens new ones. */
  close(): Promise<void>;
}

export function createWebhookPoster(fetcher: SiteFetcher): WebhookPoster {
  const pools = new Map<string, Pool>();
  const poolFor: PoolFor = (origin, servername, options) => {
    const key = `${origin}|${servername ?? ''}|${options.connectTimeoutMs}|${options.timeoutMs}`;
    let pool = pools.get(key);
    if (pool) {
      // Most recently used last, so the first is the one to close.
      pools.delete(key);
      pools.set(key, pool);
      return pool;
    }
    pool = new Pool(origin, {
      connect: { timeout: options.connectTimeoutMs, ...(servername && { servername }) },
      // The one deadline below is what counts; undici's own limits are only a backstop behind it.
      headersTimeout: options.timeoutMs + 1_000,
      bodyTimeout: options.timeoutMs + 1_000,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
    });
    pools.set(key, pool);
    if (pools.size > POOLS_KEPT) {
      const [oldestKey, oldest] = pools.entries().next().value as [string, Pool];
      pools.delete(oldestKey);
      oldest.close().catch(() => undefined);
    }
    return pool;
  };
  return {
    post: (rawUrl, body, headers, options) => postThroughGuard(fetcher, poolFor, rawUrl, body, headers, options),
    async close() {
      const all = [...pools.values()];
      pools.clear();
      await Promise.all(all.map((p) => p.close().catch(() => undefined)));
    },
  };
}

/** The kept connections to one checked address (and TLS name). */
type PoolFor = (origin: string, servername: string | null, options: PostOptions) => Pool;

async function postThroughGuard(
  fetcher: SiteFetcher,
  poolFor: PoolFor,
  rawUrl: string,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<PostAnswer> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new SiteFetchError('refused', rawUrl, `${rawUrl} is not an address`);
  }
  const abort = new AbortController();
  const late = () =>
    new SiteFetchError('timeout', url.href, `${url.host} did not answer within ${seconds(options.timeoutMs)}`);
  let timedOut = false;
  let expire: (err: Error) => void = () => undefined;
  const expired = new Promise<never>((_, reject) => (expire = reject));
  expired.catch(() => undefined);
  const deadline = setTimeout(() => {
    timedOut = true;
    abort.abort();
    expire(late());
  }, options.timeoutMs);
  try {
    // A slow resolver counts against the same deadline.
    const target = await Promise.race([fetcher.target(url), expired]);
    // Pinned: connect to the checked address, and present the host name for TLS (SNI and the certificate check).
    const host = target.pinned ? target.pinned.address : target.host;
    const origin = `${target.protocol}//${isIPv6(host) ? `[${host}]` : host}:${target.port}`;
    const res = await poolFor(origin, target.pinned ? target.host : null, options).request({
      method: 'POST',
      path: `${url.pathname}${url.search}`,
      headers: { ...headers, host: target.hostHeader, 'content-length': String(Buffer.byteLength(body)) },
      body,
      signal: abort.signal,
    });
    // Dropping a body unread makes undici emit an error on it: listen first (an unheard one is an uncaught exception).
    res.body.on('error', () => undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of res.body) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        // Past what is kept, the connection is dropped rather than the answer read.
        if (size >= options.keepBytes) break;
      }
    } catch {
      // The status is the answer; an answer cut short after it changes nothing.
    }
    const head = Buffer.concat(chunks).subarray(0, options.keepBytes).toString('utf8').replaceAll('\u0000', '');
    return { status: res.statusCode, head };
  } catch (err) {
    if (err instanceof SiteFetchError) throw err;
    const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
    if (timedOut || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') throw late();
    if (e.code === 'UND_ERR_CONNECT_TIMEOUT')
      throw new SiteFetchError(
        'timeout',
        url.href,
        `${url.host} did not accept a connection within ${seconds(options.connectTimeoutMs)}`,
      );
    throw new SiteFetchError('network', url.href, `${url.host}: ${e.cause?.code ?? e.code ?? e.message}`);
  } finally {
    clearTimeout(deadline);
  }
}
