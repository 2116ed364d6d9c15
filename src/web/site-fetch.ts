import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { refusedAddress } from './addresses.ts';
import { SiteFetchError } from './fetch-error.ts';
import { siteResponse, type SiteResponse } from './site-response.ts';

export type { SiteResponse };

/**
 * The one outbound path to customers' sites (robots.txt, llms.txt,
 * sitemaps, pages), with the SSRF guard of CONTRACT.md "Configuration":
 *
 * - every address must be `https` on port 443;
 * - a host SITE_FETCH_MAP lists (or its `www.` form) then goes to its local
 *   origin (tests, the demo; refused in production by src/config.ts);
 * - any other host is resolved once,
 *   every address checked (private, loopback, link-local, CGNAT, multicast,
 *   metadata: refused, IPv4 inside IPv6 included), and the socket connects
 *   to the checked address (a pinned `lookup`), so DNS cannot answer
 *   differently between the check and the connection;
 * - each redirect is a new fetch through the same checks, at most 5;
 * - a connect limit, a total limit (headers and body), a cap on the decoded
 *   size, gzip/deflate/br decoded; an honest User-Agent.
 *
 * docs/site-intelligence.md has the rules with their reasons.
 */

export const CRAWLER_TOKEN = 'SightlineBot';

export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

export interface SiteFetchSettings {
  map: ReadonlyMap<string, string>;
  /** false: only mapped domains are fetched. */
  outbound: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  userAgent: string;
  maxRedirects?: number;
  /** DNS; tests inject one that answers what a refusal test needs. */
  resolve?: Resolver;
  logger?: Logger;
}

export interface FetchOptions {
  /** Decoded bytes at most. */
  maxBytes: number;
  /** Past maxBytes: refuse the response (default), or keep what was read and say so (`truncated`). */
  overflow?: 'error' | 'truncate';
  accept?: string;
  /** A shorter total limit than the fetcher's. */
  timeoutMs?: number;
  /** A longer total limit than the fetcher's, for a body read as it streams (a server log the traffic import pulls). */
  downloadMs?: number;
  signal?: AbortSignal;
  /** Unwraps a gzip file served without Content-Encoding (`sitemap.xml.gz`). */
  gunzipFiles?: boolean;
}

export interface SiteFetcher {
  get(url: string, options: FetchOptions): Promise<SiteResponse>;
  /** Where a request to `url` may connect, by the same checks as `get` (webhook deliveries send through it: ./webhook-post.ts); throws SiteFetchError. */
  target(url: URL): Promise<Target>;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

export interface Target {
  protocol: 'http:' | 'https:';
  host: string;
  port: number;
  hostHeader: string;
  /** The checked address the socket must connect to; none for a mapped origin. */
  pinned: { address: string; family: 4 | 6 } | null;
}

/** A `lookup` that answers the address already checked, whatever the name. */
export function pinnedLookup(address: string, family: 4 | 6): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/**
 * The local origin of a host SITE_FETCH_MAP lists: the host itself or its
 * `www.` form (a site's domain is stored without `www.` and is read at the
 * host it was created with, `www.acme.com` when typed so). No other
 * subdomain: the map names exactly what leaves the guard.
 */
function mappedOrigin(map: ReadonlyMap<string, string>, host: string): string | null {
  return map.get(host) ?? (host.startsWith('www.') ? map.get(host.slice(4)) : undefined) ?? null;
}

const IPV4 = /\b\d{1,3}(?:\.\d{1,3}){3}\b/g;
const IPV6 = /\[?(?:[0-9a-f]{0,4}:){2,7}[0-9a-f.]{0,15}(?:%\w+)?\]?/gi;

/**
 * What a failure says to the customer: its code (ECONNRESET,
 * ERR_TLS_CERT_ALTNAME_INVALID...) or, without one, its message with any
 * address taken out. Which address a name resolves to is our network's
 * business, never a customer's (docs/site-intelligence.md).
 */
export function failureDetail(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(e.code)) return e.code;
  return String(e?.message ?? err)
    .slice(0, 200)
    .replace(IPV6, 'an address')
    .replace(IPV4, 'an address');
}

export function createSiteFetcher(settings: SiteFetchSettings): SiteFetcher {
  const resolve = settings.resolve ?? systemResolver;
  const maxRedirects = settings.maxRedirects ?? 5;

  async function route(url: URL): Promise<Target> {
    const shown = url.href;
    if (url.username || url.password)
      throw new SiteFetchError('refused', shown, `${shown}: addresses with credentials are not fetched`);
    // The map changes where a fetch goes, never which addresses are fetched: https on 443, as in production.
    if (url.protocol !== 'https:')
      throw new SiteFetchError('refused', shown, `${shown}: only https addresses are fetched`);
    if (url.port !== '' && url.port !== '443')
      throw new SiteFetchError('refused', shown, `${shown}: only port 443 is fetched`);
    const host = url.hostname
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '')
      .toLowerCase();
    if (!host) throw new SiteFetchError('refused', shown, `${shown} names no host`);
    const origin = mappedOrigin(settings.map, host);
    if (origin) {
      const o = new URL(origin);
      return {
        protocol: o.protocol === 'https:' ? 'https:' : 'http:',
        host: o.hostname.replace(/^\[|\]$/g, ''),
        port: Number(o.port) || (o.protocol === 'https:' ? 443 : 80),
        hostHeader: url.host,
        pinned: null,
      };
    }
    const literal = isIP(host);
    if (!literal && !settings.outbound)
      throw new SiteFetchError(
        'refused',
        shown,
        `${shown}: fetching sites is limited to SITE_FETCH_MAP here (SITE_FETCH_OUTBOUND=off)`,
      );
    let addresses: { address: string; family: 4 | 6 }[];
    if (literal) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }];
    else {
      try {
        addresses = await resolve(host);
      } catch (err) {
        throw new SiteFetchError('network', shown, `${host} does not resolve (${failureDetail(err)})`);
      }
      if (addresses.length === 0) throw new SiteFetchError('network', shown, `${host} does not resolve`);
    }
    // Every address must be public: a name that also points inside would be tried on another day.
    for (const a of addresses) {
      const why = refusedAddress(a.address);
      if (!why) continue;
      // An address the customer wrote (the site, a redirect) is named; one a name resolves to is ours to know: logged, not told.
      if (literal) throw new SiteFetchError('refused', shown, `${shown}: ${host}, ${why}; not fetched`);
      settings.logger?.warn(
        { host, address: a.address, why },
        'site fetch refused: the name resolves to a non-public address',
      );
      throw new SiteFetchError('refused', shown, `${shown}: ${host} resolves to a non-public address; not fetched`);
    }
    if (!settings.outbound)
      throw new SiteFetchError(
        'refused',
        shown,
        `${shown}: fetching sites is limited to SITE_FETCH_MAP here (SITE_FETCH_OUTBOUND=off)`,
      );
    const chosen = addresses.find((a) => a.family === 4) ?? (addresses[0] as { address: string; family: 4 | 6 });
    return { protocol: 'https:', host, port: 443, hostHeader: url.host, pinned: chosen };
  }

  async function get(rawUrl: string, options: FetchOptions): Promise<SiteResponse> {
    let current: URL;
    try {
      current = new URL(rawUrl);
    } catch {
      throw new SiteFetchError('refused', rawUrl, `${rawUrl} is not an address`);
    }
    const limitMs = options.downloadMs ?? Math.min(options.timeoutMs ?? settings.timeoutMs, settings.timeoutMs);
    const started = Date.now();
    const state: { failure: SiteFetchError | null; stop: (() => void) | null } = { failure: null, stop: null };
    const fail = (err: SiteFetchError) => {
      state.failure ??= err;
      state.stop?.();
    };
    const deadline = setTimeout(
      () =>
        fail(
          new SiteFetchError(
            'timeout',
            current.href,
            `${current.href} did not answer in full within ${seconds(limitMs)}`,
          ),
        ),
      limitMs,
    );
    const onAbort = () =>
      fail(new SiteFetchError('timeout', current.href, `${current.href}: stopped before it answered`));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    const finish = () => {
      clearTimeout(deadline);
      options.signal?.removeEventListener('abort', onAbort);
    };
    const failed = (err: unknown): SiteFetchError => {
      if (state.failure) return state.failure;
      if (err instanceof SiteFetchError) return err;
      const e = err as NodeJS.ErrnoException;
      // zlib's codes start Z_, brotli's ERR__ (ERR__ERROR_FORMAT_PADDING_1...).
      if (e.code?.startsWith('Z_') || e.code?.startsWith('ERR__'))
        return new SiteFetchError(
          'encoding',
          current.href,
          `${current.href}: the compressed answer does not decompress`,
        );
      return new SiteFetchError('network', current.href, `${current.href}: ${failureDetail(e)}`);
    };

    try {
      for (let redirects = 0; ; redirects++) {
        if (state.failure) throw state.failure;
        const target = await Promise.race([
          route(current),
          new Promise<never>((_, reject) => {
            state.stop = () => reject(state.failure);
          }),
        ]);
        const res = await send(current, target, options, state, settings);
        const status = res.statusCode ?? 0;
        settings.logger?.debug({ url: current.href, status, ms: Date.now() - started }, 'site fetch');
        if (REDIRECTS.has(status)) {
          const location = res.headers.location;
          res.destroy();
          if (!location)
            throw new SiteFetchError('redirects', current.href, `${current.href} redirects without saying where`);
          if (redirects >= maxRedirects)
            throw new SiteFetchError('redirects', current.href, `${rawUrl}: more than ${maxRedirects} redirects`);
          try {
            current = new URL(location, current);
          } catch {
            throw new SiteFetchError(
              'redirects',
              current.href,
              `${current.href} redirects to "${location.slice(0, 200)}", which is not an address`,
            );
          }
          continue;
        }
        return siteResponse(current.href, res, options, state, finish, failed);
      }
    } catch (err) {
      finish();
      throw failed(err);
    }
  }

  return { get, target: route };
}

/** One request to one checked target; answers the response head. */
function send(
  url: URL,
  target: Target,
  options: FetchOptions,
  state: { failure: SiteFetchError | null; stop: (() => void) | null },
  settings: SiteFetchSettings,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request({
      host: target.host,
      port: target.port,
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      agent: false,
      headers: {
        host: target.hostHeader,
        'user-agent': settings.userAgent,
        accept: options.accept ?? '*/*',
        'accept-encoding': 'gzip, deflate, br',
        connection: 'close',
      },
      ...(target.pinned && { lookup: pinnedLookup(target.pinned.address, target.pinned.family) }),
      ...(target.protocol === 'https:' && !isIP(target.host) && { servername: target.host }),
    });
    const connect = setTimeout(
      () =>
        req.destroy(
          (state.failure ??= new SiteFetchError(
            'timeout',
            url.href,
            `${url.host} did not accept a connection within ${seconds(settings.connectTimeoutMs)}`,
          )),
        ),
      settings.connectTimeoutMs,
    );
    state.stop = () => req.destroy(state.failure ?? undefined);
    req.once('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connect);
      else socket.once('connect', () => clearTimeout(connect));
    });
    req.once('response', (res) => {
      clearTimeout(connect);
      state.stop = () => res.destroy(state.failure ?? undefined);
      resolve(res);
    });
    req.once('error', (err) => {
      clearTimeout(connect);
      reject(state.failure ?? err);
    });
    req.end();
  });
}

export const userAgentFor = (contactUrl: string) => `${CRAWLER_TOKEN}/1.0 (+${contactUrl})`;

/** The deployment's fetcher, from its configuration. */
export function siteFetcherFor(config: Config, logger?: Logger, resolve?: Resolver): SiteFetcher {
  return createSiteFetcher({
    map: config.siteFetchMap,
    outbound: config.siteFetch.outbound,
    timeoutMs: config.siteFetch.timeoutMs,
    connectTimeoutMs: config.siteFetch.connectTimeoutMs,
    userAgent: userAgentFor(config.siteFetch.contactUrl),
    logger,
    resolve,
  });
}
