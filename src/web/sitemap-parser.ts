import { SaxesParser } from 'saxes';

/**
 * One sitemap file (sitemaps.org protocol) read as it downloads, with saxes,
 * a conforming streaming XML parser: memory holds the entries, never the
 * document. `<urlset>` lists pages, `<sitemapindex>` lists other sitemaps;
 * only `loc` and `lastmod` directly inside `<url>` or `<sitemap>` count, so
 * image and video extensions (`<image:loc>`) are not taken for pages. No DTD
 * is processed, so entity tricks fail as errors instead of expanding.
 */

/** The protocol's limits for one file. */
export const SITEMAP_MAX_ENTRIES = 50_000;
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
/** The protocol's URL length limit; longer `loc`s are skipped. */
const LOC_MAX = 2048;

export type SitemapKind = 'urlset' | 'sitemapindex';

export interface SitemapEntry {
  loc: string;
  lastmod: string | null;
}

export interface SitemapFile {
  kind: SitemapKind;
  entries: SitemapEntry[];
  /** Entries without a usable `loc` (empty or too long). */
  skipped: number;
}

/** The file is not a sitemap: not XML, another document, or past the protocol's limits. */
export class SitemapError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SitemapError';
  }
}

const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

export async function parseSitemap(chunks: AsyncIterable<Buffer>, url: string, maxEntries = SITEMAP_MAX_ENTRIES): Promise<SitemapFile> {
  const parser = new SaxesParser({ xmlns: false });
  const stack: string[] = [];
  let kind: SitemapKind | null = null;
  const entries: SitemapEntry[] = [];
  let skipped = 0;
  let loc: string | null = null;
  let lastmod: string | null = null;
  let field: 'loc' | 'lastmod' | null = null;
  let value = '';

  parser.on('opentag', (tag) => {
    const name = local(tag.name);
    if (stack.length === 0) {
      if (name !== 'urlset' && name !== 'sitemapindex') throw new SitemapError(`${url} is not a sitemap: its root element is <${tag.name}>, not <urlset> or <sitemapindex>`);
      kind = name;
    } else if (stack.length === 1 && name === (kind === 'urlset' ? 'url' : 'sitemap')) {
      loc = null;
      lastmod = null;
    } else if (stack.length === 2 && (name === 'loc' || name === 'lastmod') && stack[1] === (kind === 'urlset' ? 'url' : 'sitemap')) {
      field = name;
      value = '';
    }
    stack.push(name);
  });
  const onText = (text: string) => {
    // A runaway value is not kept growing; it is skipped when its element ends.
    if (field && value.length <= LOC_MAX) value += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    const name = stack.pop();
    if (field && stack.length === 2) {
      const v = value.trim();
      if (field === 'loc') loc = v.length > 0 && v.length <= LOC_MAX ? v : '';
      else lastmod = v.slice(0, 40) || null;
      field = null;
    } else if (stack.length === 1 && (name === 'url' || name === 'sitemap')) {
      if (loc) {
        if (entries.length >= maxEntries) throw new SitemapError(`${url} lists more than ${maxEntries.toLocaleString('en-US')} entries, the protocol’s limit for one file`);
        entries.push({ loc, lastmod });
      } else skipped++;
    }
  });

  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of chunks) parser.write(decoder.decode(chunk, { stream: true }));
    parser.write(decoder.decode());
    parser.close();
  } catch (err) {
    if (err instanceof SitemapError) throw err;
    // Fetch failures (size, time) pass through; anything saxes throws means the text is not XML.
    if (err instanceof Error && err.name === 'SiteFetchError') throw err;
    throw new SitemapError(`${url} is not a sitemap: not well-formed XML (${(err as Error).message.slice(0, 200)})`);
  }
  if (!kind) throw new SitemapError(`${url} is not a sitemap: it is empty`);
  return { kind, entries, skipped };
}
