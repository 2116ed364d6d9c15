import { describe, expect, it } from 'vitest';
import { parseSitemap, SitemapError } from '../../../src/web/sitemap-parser.ts';

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
    const xml = '<sm:sitemapindex xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:sitemap><sm:loc>https://acme.com/s1.xml</sm:loc></sm:sitemap></sm:sitemapindex>';
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
