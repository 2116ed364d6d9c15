import { afterAll, describe, expect, it } from 'vitest';
import { readTitle } from '../../../src/web/html-title.ts';
import { readLlmsTxt } from '../../../src/web/llms-txt.ts';
import { parseRobotsTxt } from '../../../src/web/robots.ts';
import { SiteFileError } from '../../../src/web/site-file-error.ts';
import { createSiteFilePool, createSiteFileReader } from '../../../src/web/site-file-pool.ts';
import { parseSitemap, SitemapError } from '../../../src/web/sitemap-parser.ts';

/**
 * The parsing threads: the same answers as parsing here, a deadline that
 * stops the thread (and leaves this one free meanwhile), a heap limit that
 * kills the thread instead of the process, and bytes handed over uncopied.
 */

/** A pool as a context makes it (src/context.ts `siteFilePool`). */
const shared = createSiteFilePool();
const reader = createSiteFileReader({ deadlineMs: 20_000, pool: shared });
const ROBOTS = {
  url: 'https://acme.com/robots.txt',
  text: 'User-agent: *\nDisallow: /private\nSitemap: https://acme.com/s.xml\n',
  truncated: false,
};
const encode = (text: string) => new TextEncoder().encode(text);
async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}
/** A sitemap of `count` URLs, about 60 bytes each. */
function urlset(count: number): string {
  const parts = ['<urlset>'];
  for (let i = 0; i < count; i++) parts.push(`<url><loc>https://acme.com/products/item-${i}</loc></url>`);
  parts.push('</urlset>');
  return parts.join('');
}

afterAll(() => shared.close());

describe('site file threads', () => {
  it('answer what parsing here answers, for each kind of file', async () => {
    const here = parseRobotsTxt(ROBOTS.url, ROBOTS.text);
    expect(await reader.robots(ROBOTS, ['GPTBot', 'ClaudeBot'])).toEqual({
      sitemaps: ['https://acme.com/s.xml'],
      unreadLines: 0,
      notes: [],
      access: [here.access('GPTBot'), here.access('ClaudeBot')],
    });
    expect(
      await reader.robotsAllows(ROBOTS, 'SightlineBot', ['https://acme.com/a', 'https://acme.com/private/b']),
    ).toEqual([true, false]);
    const llms = '# Acme\n- [A](https://acme.com/a)\n';
    expect(await reader.llmsTxt(llms, 'text/markdown')).toEqual(readLlmsTxt(llms, 'text/markdown'));
    const sitemap = urlset(3);
    expect(await reader.sitemap('https://acme.com/s.xml', encode(sitemap))).toEqual(
      await parseSitemap(once(encode(sitemap)), 'https://acme.com/s.xml'),
    );
    const page = '<html><head><title>Acme &amp; co</title></head><body>';
    expect(await reader.title('https://acme.com/', encode(page))).toBe(await readTitle(once(encode(page))));
  });

  it('send back a file that is not a sitemap as a SitemapError', async () => {
    const err = await reader.sitemap('https://acme.com/s.xml', encode('<html><body>')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SitemapError);
    expect((err as Error).message).toBe(
      'https://acme.com/s.xml is not a sitemap: its root element is <html>, not <urlset> or <sitemapindex>',
    );
    const broken = await reader.sitemap('https://acme.com/s.xml', encode('<urlset><url>')).catch((e: unknown) => e);
    expect((broken as Error).message).toMatch(/^https:\/\/acme\.com\/s\.xml is not a sitemap: not well-formed XML/);
  });

  it('hand the bytes over without copying them', async () => {
    const bytes = encode(urlset(10));
    expect((await reader.sitemap('https://acme.com/s.xml', bytes)).entries).toHaveLength(10);
    expect(bytes.byteLength).toBe(0);
    // A view of a larger buffer is copied, so the rest of that buffer stays usable.
    const shared = Buffer.from(urlset(2));
    expect((await reader.sitemap('https://acme.com/s.xml', shared.subarray(0, shared.length))).entries).toHaveLength(2);
  });

  it('stop a parse at its deadline, leaving this thread free meanwhile, and go on with the next file', async () => {
    const pool = createSiteFilePool({ maxThreads: 1 });
    const slow = createSiteFileReader({ deadlineMs: 150, pool });
    const patient = createSiteFileReader({ deadlineMs: 20_000, pool });
    try {
      // A thread started and waiting, so the deadline falls during the parse itself.
      await patient.llmsTxt('# Acme', null);
      // About 38 MB within every cap (8 million elements, no entry): 0.85 s to parse on a quiet machine, so it ends at
      // the deadline, not at the protocol's 50,000 entries (which a fast moment could reach first with real entries).
      const bytes = encode(`<urlset>${'<url><a/><a/><a/><a/><a/><a/></url>'.repeat(1_100_000)}</urlset>`);
      let lastTick = performance.now();
      let longestGap = 0;
      const ticker = setInterval(() => {
        longestGap = Math.max(longestGap, performance.now() - lastTick);
        lastTick = performance.now();
      }, 10);
      const started = performance.now();
      const err = await slow.sitemap('https://acme.com/big.xml', bytes).catch((e: unknown) => e);
      const took = performance.now() - started;
      clearInterval(ticker);
      expect(err).toBeInstanceOf(SiteFileError);
      expect(err).toMatchObject({
        kind: 'timeout',
        file: 'https://acme.com/big.xml',
        message: 'https://acme.com/big.xml took too long to read (over 150 ms); it was not used',
      });
      expect(took).toBeLessThan(3000);
      // The parse ran on its thread: this one kept ticking.
      expect(longestGap).toBeLessThan(1000);
      // The stopped thread is replaced.
      expect(await patient.robotsAllows(ROBOTS, 'SightlineBot', ['https://acme.com/private/x'])).toEqual([false]);
    } finally {
      await pool.close();
    }
  });

  it('stop a parse that needs more memory than its thread has, and the process goes on', async () => {
    // Not much less than 32 MB: a site-file thread holds 12-13 MB once loaded, and a replacement that ran out while
    // loading would make piscina start no other (see ../analysis/pool.test.ts), so the last call below would wait for ever.
    const pool = createSiteFilePool({ maxThreads: 1, heapMb: 32 });
    const small = createSiteFileReader({ deadlineMs: 60_000, pool });
    try {
      // 300,000 URLs of 220 characters: well past 32 MB in the thread.
      const urls = Array.from({ length: 300_000 }, (_, i) => `https://acme.com/${'p'.repeat(200)}${i}`);
      const err = await small.robotsAllows(ROBOTS, 'SightlineBot', urls).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SiteFileError);
      expect(err).toMatchObject({
        kind: 'memory',
        message: 'robots.txt needs more memory to read than allowed (32 MB); it was not used',
      });
      expect(await small.llmsTxt('# Acme\n[a](b)', null)).toMatchObject({ state: 'present', links: 1 });
    } finally {
      await pool.close();
    }
  });

  it('start again after the pool is closed', async () => {
    await shared.close();
    expect(await reader.llmsTxt('# Acme', null)).toMatchObject({ state: 'present' });
  });
});
