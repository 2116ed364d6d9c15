import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureSite, type FixtureSite } from '../../../src/fixture-site/server.ts';
import { SiteFetchError } from '../../../src/web/fetch-error.ts';
import {
  createSiteFetcher,
  failureDetail,
  pinnedLookup,
  type Resolver,
  type SiteFetchSettings,
} from '../../../src/web/site-fetch.ts';

/**
 * The fetch guard: every refusal of CONTRACT.md's SSRF rules, redirects,
 * limits and decoding, against a local fixture site reached through the map
 * and names answered by an injected resolver.
 */

let site: FixtureSite;
const MB = 1 << 20;

/** A resolver answering from a table, counting its calls. */
function resolverOf(table: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (host: string) => {
    calls.push(host);
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { calls });
}

const fetcher = (overrides: Partial<SiteFetchSettings> = {}) =>
  createSiteFetcher({
    map: new Map([['fixture.test', site.url]]),
    outbound: true,
    timeoutMs: 2000,
    connectTimeoutMs: 1000,
    userAgent: 'SightlineBot/1.0 (+https://sightline.dev/bot)',
    resolve: resolverOf({}),
    ...overrides,
  });

async function refusal(promise: Promise<unknown>): Promise<SiteFetchError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SiteFetchError);
  return err as SiteFetchError;
}

beforeAll(async () => {
  site = await startFixtureSite({
    routes: {
      '/robots.txt': 'User-agent: *\nDisallow: /private\n',
      '/gzipped.txt': { body: 'hello from gzip', gzip: true },
      '/sitemap.xml.gz': { body: gzipSync('<urlset/>'), type: 'application/gzip' },
      '/big': { body: Buffer.alloc(2 * MB, 'a') },
      '/bad-gzip': { body: 'not gzip at all', headers: { 'content-encoding': 'gzip' } },
      '/odd-encoding': { body: 'x', headers: { 'content-encoding': 'zstd-2099' } },
      '/bomb': { body: Buffer.alloc(64 * MB), gzip: true },
      '/to-loopback': { status: 302, headers: { location: 'http://127.0.0.1:1/admin' } },
      '/to-loopback-https': { status: 301, headers: { location: 'https://127.0.0.1/admin' } },
      '/to-localhost': { status: 302, headers: { location: 'https://localhost/' } },
      '/to-metadata': { status: 307, headers: { location: 'https://169.254.169.254/latest/meta-data/' } },
      '/to-inside-name': { status: 302, headers: { location: 'https://inside.example/' } },
      '/to-relative': { status: 302, headers: { location: '/robots.txt' } },
      '/no-location': { status: 302 },
      '/slow-loris': {
        handle: (_req, res) => {
          res.writeHead(200, { 'content-type': 'text/plain' });
          const drip = setInterval(() => res.write('x'), 100);
          res.on('close', () => clearInterval(drip));
        },
      },
      '/endless': {
        handle: (_req, res) => {
          res.writeHead(200, { 'content-type': 'application/xml' });
          const chunk = Buffer.alloc(64 * 1024, '<');
          const pump = () => {
            while (res.write(chunk));
          };
          res.on('drain', pump);
          pump();
        },
      },
      '/silent': { handle: () => undefined },
    },
  });
  for (let i = 0; i < 7; i++) site.set(`/hop${i}`, { status: 302, headers: { location: `/hop${i + 1}` } });
  site.set('/hop7', 'arrived');
});
afterAll(() => site.close());

describe('mapped domains', () => {
  it('fetch the local origin with the site’s Host and an honest User-Agent', async () => {
    const res = await fetcher().get('https://www.fixture.test/robots.txt', { maxBytes: MB });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Disallow: /private');
    const seen = site.requests.at(-1);
    expect(seen).toMatchObject({
      path: '/robots.txt',
      host: 'www.fixture.test',
      userAgent: expect.stringMatching(/^SightlineBot\/1\.0 \(\+https:\/\/sightline\.dev\/bot\)$/),
    });
  });

  it('follow relative redirects, at most 5', async () => {
    const one = await fetcher().get('https://fixture.test/to-relative', { maxBytes: MB });
    expect(one.url).toBe('https://fixture.test/robots.txt');
    expect(await one.text()).toContain('User-agent');
    const five = await fetcher().get('https://fixture.test/hop2', { maxBytes: MB });
    expect(await five.text()).toBe('arrived');
    const six = await refusal(fetcher().get('https://fixture.test/hop1', { maxBytes: MB }));
    expect(six.kind).toBe('redirects');
    expect(six.message).toMatch(/more than 5 redirects/);
    expect((await refusal(fetcher().get('https://fixture.test/no-location', { maxBytes: MB }))).kind).toBe('redirects');
  });
});

describe('SITE_FETCH_MAP', () => {
  it('maps only the listed host and its www. form', async () => {
    const resolve = resolverOf({});
    const before = site.requests.length;
    const sub = await refusal(fetcher({ resolve }).get('https://shop.fixture.test/robots.txt', { maxBytes: MB }));
    expect(sub.message).toMatch(/shop\.fixture\.test does not resolve/);
    expect(resolve.calls).toEqual(['shop.fixture.test']);
    await refusal(fetcher({ resolve }).get('https://www.shop.fixture.test/robots.txt', { maxBytes: MB }));
    expect(site.requests.length).toBe(before);
    expect((await fetcher().get('https://fixture.test/robots.txt', { maxBytes: MB })).status).toBe(200);
    expect((await fetcher().get('https://WWW.Fixture.Test./robots.txt', { maxBytes: MB })).status).toBe(200);
  });

  it('sends only https on port 443 to the local origin, as production would fetch them', async () => {
    const before = site.requests.length;
    expect((await refusal(fetcher().get('http://fixture.test/robots.txt', { maxBytes: MB }))).message).toBe(
      'http://fixture.test/robots.txt: only https addresses are fetched',
    );
    expect((await refusal(fetcher().get('https://fixture.test:8443/robots.txt', { maxBytes: MB }))).message).toMatch(
      /only port 443/,
    );
    expect((await refusal(fetcher().get('http://www.fixture.test:80/robots.txt', { maxBytes: MB }))).message).toMatch(
      /only https/,
    );
    expect(site.requests.length).toBe(before);
    const res = await fetcher().get('https://fixture.test:443/robots.txt', { maxBytes: MB });
    expect(res.status).toBe(200);
    res.discard();
  });
});

describe('refusals', () => {
  it('refuses every address that is not public, after resolving the name once, naming only addresses the customer wrote', async () => {
    const inside: [string, RegExp][] = [
      ['127.0.0.1', /loopback/],
      ['127.8.9.10', /loopback/],
      ['10.1.2.3', /private/],
      ['172.20.0.5', /private/],
      ['192.168.1.1', /private/],
      ['169.254.169.254', /link-local/],
      ['100.100.100.200', /carrier-grade NAT/],
      ['100.64.0.1', /carrier-grade NAT/],
      ['0.0.0.0', /this network/],
      ['224.0.0.251', /multicast/],
      ['255.255.255.255', /reserved/],
      ['168.63.129.16', /metadata/],
      ['::1', /loopback/],
      ['::', /unspecified/],
      ['fe80::1', /link-local/],
      ['fc00::1', /private/],
      ['fd00:ec2::254', /private/],
      ['ff02::1', /multicast/],
      ['::ffff:127.0.0.1', /loopback address \(127\.0\.0\.1 inside an IPv6 address\)/],
      ['::ffff:a9fe:a9fe', /link-local .*169\.254\.169\.254 inside/],
      ['::ffff:10.0.0.1', /private/],
      ['64:ff9b::7f00:1', /loopback/],
      ['2002:c0a8:101::1', /private/],
    ];
    for (const [address, why] of inside) {
      const resolve = resolverOf({ 'shop.example': [address] });
      const err = await refusal(fetcher({ resolve }).get('https://shop.example/robots.txt', { maxBytes: MB }));
      expect(err.kind, address).toBe('refused');
      // Where a name points inside is our network's map: the customer learns only that it is not public.
      expect(err.message, address).toBe(
        'https://shop.example/robots.txt: shop.example resolves to a non-public address; not fetched',
      );
      expect(resolve.calls).toEqual(['shop.example']);
      // An address the customer wrote is named with its reason.
      const literal = await refusal(
        fetcher({ resolve }).get(`https://${address.includes(':') ? `[${address}]` : address}/`, { maxBytes: MB }),
      );
      expect(literal.kind, address).toBe('refused');
      expect(literal.message, address).toMatch(why);
    }
  });

  it('refuses a name when any of its addresses is inside', async () => {
    const resolve = resolverOf({ 'shop.example': ['93.184.215.14', '10.0.0.7'] });
    const err = await refusal(fetcher({ resolve }).get('https://shop.example/', { maxBytes: MB }));
    expect(err.message).toMatch(/shop\.example resolves to a non-public address/);
    expect(err.message).not.toMatch(/10\.0\.0\.7|93\.184/);
  });

  it('refuses literal addresses and localhost in URLs without asking DNS', async () => {
    const resolve = resolverOf({});
    for (const [url, why] of [
      ['https://127.0.0.1/', /loopback/],
      ['https://2130706433/', /loopback/],
      ['https://0x7f.0.0.1/', /loopback/],
      ['https://[::1]/', /loopback/],
      ['https://[::ffff:7f00:1]/', /loopback/],
      ['https://169.254.169.254/latest/meta-data/', /link-local/],
      ['https://[fe80::1]/', /link-local/],
    ] as const) {
      const err = await refusal(fetcher({ resolve }).get(url, { maxBytes: MB }));
      expect(err.message, url).toMatch(why);
    }
    expect(resolve.calls).toEqual([]);
    // The system resolver answers localhost with loopback.
    const local = await refusal(fetcher({ resolve: undefined }).get('https://localhost/', { maxBytes: MB }));
    expect(local.message).toMatch(/localhost resolves to a non-public address; not fetched/);
  });

  it('refuses http, other ports, other schemes and credentials', async () => {
    const resolve = resolverOf({ 'shop.example': ['93.184.215.14'] });
    const f = fetcher({ resolve });
    expect((await refusal(f.get('http://shop.example/', { maxBytes: MB }))).message).toMatch(/only https/);
    expect((await refusal(f.get('https://shop.example:8443/', { maxBytes: MB }))).message).toMatch(/only port 443/);
    expect((await refusal(f.get('ftp://shop.example/', { maxBytes: MB }))).message).toMatch(/only https/);
    expect((await refusal(f.get('file:///etc/passwd', { maxBytes: MB }))).message).toMatch(/only https/);
    expect((await refusal(f.get('https://user:pw@shop.example/', { maxBytes: MB }))).message).toMatch(/credentials/);
    expect((await refusal(f.get('not a url', { maxBytes: MB }))).message).toMatch(/not an address/);
    expect(resolve.calls).toEqual([]);
  });

  it('refuses every domain outside the map when outbound fetching is off', async () => {
    const resolve = resolverOf({ 'shop.example': ['93.184.215.14'] });
    const err = await refusal(fetcher({ resolve, outbound: false }).get('https://shop.example/', { maxBytes: MB }));
    expect(err.message).toMatch(/SITE_FETCH_MAP/);
    expect(resolve.calls).toEqual([]);
  });

  it('re-checks every redirect: loopback, localhost, metadata and names resolving inside', async () => {
    const resolve = resolverOf({ 'inside.example': ['192.168.0.10'] });
    const f = fetcher({ resolve });
    expect((await refusal(f.get('https://fixture.test/to-loopback', { maxBytes: MB }))).message).toMatch(
      /http:\/\/127\.0\.0\.1:1\/admin: only https/,
    );
    expect((await refusal(f.get('https://fixture.test/to-loopback-https', { maxBytes: MB }))).message).toMatch(
      /127\.0\.0\.1, a loopback address/,
    );
    expect(
      (await refusal(fetcher({ resolve: undefined }).get('https://fixture.test/to-localhost', { maxBytes: MB })))
        .message,
    ).toMatch(/localhost resolves to a non-public address/);
    expect((await refusal(f.get('https://fixture.test/to-metadata', { maxBytes: MB }))).message).toMatch(
      /169\.254\.169\.254, a link-local address/,
    );
    const inside = await refusal(f.get('https://fixture.test/to-inside-name', { maxBytes: MB }));
    expect(inside.message).toBe(
      'https://inside.example/: inside.example resolves to a non-public address; not fetched',
    );
  });

  it('logs the address a refused name resolves to, for the operator', async () => {
    const logged: object[] = [];
    const logger = {
      warn: (o: object) => logged.push(o),
      debug: () => undefined,
    } as unknown as SiteFetchSettings['logger'];
    const resolve = resolverOf({ 'shop.example': ['10.0.3.7'] });
    await refusal(fetcher({ resolve, logger }).get('https://shop.example/', { maxBytes: MB }));
    expect(logged).toEqual([{ host: 'shop.example', address: '10.0.3.7', why: 'a private address' }]);
  });

  it('keeps addresses out of DNS and network failures', async () => {
    // A resolver's error without a code, carrying an address.
    const resolve = Object.assign(
      async () => Promise.reject(new Error('upstream 10.0.3.7 refused the query for shop.example')),
      { calls: [] },
    );
    const dns = await refusal(fetcher({ resolve }).get('https://shop.example/', { maxBytes: MB }));
    expect(dns.message).toBe('shop.example does not resolve (upstream an address refused the query for shop.example)');
    // A connection refused by the origin: its code, never the address connected to.
    const down = await refusal(
      fetcher({ map: new Map([['down.test', 'http://127.0.0.1:1']]) }).get('https://down.test/', { maxBytes: MB }),
    );
    expect(down.message).toBe('https://down.test/: ECONNREFUSED');
    expect(failureDetail(new Error('connect to [fd00:ec2::254]:443 and 169.254.169.254 failed'))).toBe(
      'connect to an address:443 and an address failed',
    );
    expect(failureDetail(Object.assign(new Error('connect ECONNRESET 10.1.2.3:443'), { code: 'ECONNRESET' }))).toBe(
      'ECONNRESET',
    );
  });

  it('connects to the address it checked, whatever the name', () => {
    const lookup = pinnedLookup('93.184.215.14', 4);
    const one: unknown[] = [];
    lookup('anything.example', {}, (...args: unknown[]) => one.push(args));
    lookup('anything.example', { all: true }, (...args: unknown[]) => one.push(args));
    expect(one).toEqual([
      [null, '93.184.215.14', 4],
      [null, [{ address: '93.184.215.14', family: 4 }]],
    ]);
  });
});

describe('limits', () => {
  it('stops a slow-loris origin at the total time limit', async () => {
    const started = Date.now();
    const res = await fetcher({ timeoutMs: 600 }).get('https://fixture.test/slow-loris', { maxBytes: MB });
    const err = await refusal(res.text());
    expect(err.kind).toBe('timeout');
    expect(err.message).toMatch(/did not answer in full within 0\.6 s/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('stops an origin that never answers', async () => {
    const err = await refusal(fetcher({ timeoutMs: 500 }).get('https://fixture.test/silent', { maxBytes: MB }));
    expect(err.kind).toBe('timeout');
  });

  it('refuses a body past its cap: declared, streamed without end, or a gzip bomb', async () => {
    const declared = await fetcher().get('https://fixture.test/big', { maxBytes: MB });
    expect((await refusal(declared.text())).message).toMatch(/larger than 1 MB/);
    const endless = await fetcher({ timeoutMs: 10_000 }).get('https://fixture.test/endless', { maxBytes: 4 * MB });
    expect((await refusal(endless.text())).kind).toBe('too-large');
    const bomb = await fetcher().get('https://fixture.test/bomb', { maxBytes: MB });
    expect((await refusal(bomb.text())).kind).toBe('too-large');
  });

  it('keeps the first bytes when asked to truncate', async () => {
    const res = await fetcher().get('https://fixture.test/big', { maxBytes: 1000, overflow: 'truncate' });
    expect(await res.text()).toHaveLength(1000);
    expect(res.truncated).toBe(true);
  });

  it('decodes gzip, unwraps .gz files when asked, and refuses what does not decode', async () => {
    expect(await (await fetcher().get('https://fixture.test/gzipped.txt', { maxBytes: MB })).text()).toBe(
      'hello from gzip',
    );
    expect(
      await (await fetcher().get('https://fixture.test/sitemap.xml.gz', { maxBytes: MB, gunzipFiles: true })).text(),
    ).toBe('<urlset/>');
    expect((await refusal((await fetcher().get('https://fixture.test/bad-gzip', { maxBytes: MB })).text())).kind).toBe(
      'encoding',
    );
    expect(
      (await refusal((await fetcher().get('https://fixture.test/odd-encoding', { maxBytes: MB })).text())).message,
    ).toMatch(/encoding we did not ask for/);
  });
});
