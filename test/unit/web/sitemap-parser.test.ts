import { describe, expect, it } from 'vitest';
import {
  parseSitemap,
  SITEMAP_MAX_ATTRIBUTES,
  SITEMAP_MAX_DEPTH,
  SitemapError,
} from '../../../src/web/sitemap-parser.ts';

/** One sitemap file, streamed: urlsets, indexes, extensions, CDATA, chunk boundaries and what is not a sitemap. */

async function* chunks(text: string, size = 7): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}
const parse = (text: string, max?: number) => parseSitemap(chunks(text), 'https://acme.com/sitemap.xml', max);

describe('sitemap parser', () => {
  it('reads a urlset across chunk boundaries, ignoring image locs and taking CDATA and entities', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
      <urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
        <url><loc> https://acme.com/a?x=1&amp;y=2 </loc><lastmod>2026-10-01</lastmod>
          <image:image><image:loc>https://acme.com/a.png</image:loc></image:image></url>
        <url><loc><![CDATA[https://acme.com/é]]></loc></url>
        <url><loc></loc></url>
      </urlset>`;
    expect(await parse(xml)).toEqual({
      kind: 'urlset',
      entries: [
        { loc: 'https://acme.com/a?x=1&y=2', lastmod: '2026-10-01' },
        { loc: 'https://acme.com/é', lastmod: null },
      ],
      skipped: 1,
    });
  });

  it('reads an index, prefixed names too', async () => {
    const xml =
      '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://acme.com/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
    expect(await parse(xml)).toMatchObject({ kind: 'sitemapindex', entries: [{ loc: 'https://acme.com/s1.xml' }] });
  });

  it('refuses what is not a sitemap', async () => {
    for (const [text, why] of [
      ['<html><body><p>hi<br></body></html>', /root element is <html>/],
      ['<?xml version="1.0"?><urlset><url><loc>a</loc></url><p>hi<br></p></urlset>', /not well-formed XML/],
      ['plain text', /not well-formed XML/],
      ['', /not well-formed XML|empty/],
      ['<rss><channel/></rss>', /root element is <rss>/],
      ['<urlset><url><loc>https://acme.com/</loc></url>', /not well-formed XML/],
      ['<!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa">]><urlset><url><loc>&a;</loc></url></urlset>', /not well-formed XML/],
    ] as const) {
      const err = await parse(text).catch((e: unknown) => e);
      expect(err, text).toBeInstanceOf(SitemapError);
      expect((err as Error).message, text).toMatch(why);
    }
  });

  it('holds a file to its entry limit', async () => {
    const xml = `<urlset>${'<url><loc>https://acme.com/x</loc></url>'.repeat(6)}</urlset>`;
    await expect(parse(xml, 5)).rejects.toThrow(/more than 5 entries/);
    expect((await parse(xml, 6)).entries).toHaveLength(6);
  });
});

describe('sitemap parser limits', () => {
  const refusal = async (text: string) => {
    const err = await parseSitemap(chunks(text, 64 * 1024), 'https://acme.com/sitemap.xml').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SitemapError);
    return (err as Error).message;
  };

  it('refuses elements nested past SITEMAP_MAX_DEPTH at once, however deep the file goes', async () => {
    // saxes keeps every open element: 4 million levels (under 50 KB gzipped) took 1.1 GB.
    const levels = 1_000_000;
    const deep = `<urlset>${'<a>'.repeat(levels)}${'</a>'.repeat(levels)}</urlset>`;
    const started = performance.now();
    const heap = process.memoryUsage().heapUsed;
    expect(await refusal(deep)).toBe(
      'https://acme.com/sitemap.xml is not a sitemap: its elements are nested more than 16 deep (a sitemap has 3 or 4 levels)',
    );
    expect(performance.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(100 * 1024 * 1024);
    const deepest = (depth: number) =>
      `<urlset>${'<a>'.repeat(depth - 1)}${'</a>'.repeat(depth - 1)}<url><loc>https://acme.com/</loc></url></urlset>`;
    expect((await parse(deepest(SITEMAP_MAX_DEPTH))).entries).toHaveLength(1);
    await expect(parse(deepest(SITEMAP_MAX_DEPTH + 1))).rejects.toThrow(/nested more than 16 deep/);
  });

  it('reads a real four-level sitemap with extensions', async () => {
    const xml = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">
      <url><loc>https://acme.com/v</loc><video:video><video:thumbnail_loc>https://acme.com/t.jpg</video:thumbnail_loc><video:price currency="EUR">1</video:price></video:video></url></urlset>`;
    expect((await parse(xml)).entries).toEqual([{ loc: 'https://acme.com/v', lastmod: null }]);
  });

  it('refuses an element with more than SITEMAP_MAX_ATTRIBUTES attributes', async () => {
    const attributes = (n: number) => Array.from({ length: n }, (_, i) => `a${i}="x"`).join(' ');
    expect(
      (
        await parse(
          `<urlset ${attributes(SITEMAP_MAX_ATTRIBUTES)}><url ${attributes(SITEMAP_MAX_ATTRIBUTES)}><loc>https://acme.com/</loc></url></urlset>`,
        )
      ).entries,
    ).toHaveLength(1);
    const many = `<urlset><url ${attributes(500_000)}/></urlset>`;
    const started = performance.now();
    expect(await refusal(many)).toMatch(/an element has more than 64 attributes/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('keeps no long name or text it does not need', async () => {
    const long = 'x'.repeat(5 << 20);
    expect(await refusal(`<${long}/>`)).toMatch(new RegExp(`root element is <x{100}>, not`));
    // Text and a runaway loc are read past, not kept: a loc longer than 2,048 characters is skipped.
    const read = parseSitemap(
      chunks(
        `<urlset>${long}<url><loc>https://acme.com/${long}</loc></url><url><loc>https://acme.com/ok</loc></url><!--${long}--></urlset>`,
        64 * 1024,
      ),
      'x',
    );
    expect(await read).toEqual({
      kind: 'urlset',
      entries: [{ loc: 'https://acme.com/ok', lastmod: null }],
      skipped: 1,
    });
  });
});
