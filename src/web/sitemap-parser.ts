import { SaxesParser } from 'saxes';

/**
 * One sitemap file (sitemaps.org protocol) read with saxes, a conforming
 * streaming XML parser, a piece at a time: memory holds the entries and the
 * open elements (at most SITEMAP_MAX_DEPTH), never the document's tree. Jobs
 * run it on a parsing thread (./site-file-pool.ts) over the file's bytes.
 * `<urlset>` lists pages, `<sitemapindex>` lists other sitemaps;
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

/**
 * A sitemap is 3 levels deep (`urlset > url > loc`), 4 with extensions
 * (`url > image:image > image:loc`). saxes keeps every open element (its
 * name and attributes) until it closes, so 4 million nested elements took
 * 1.1 GB: deeper than this is refused as soon as it is seen.
 */
export const SITEMAP_MAX_DEPTH = 16;
/** Attributes on one element: a urlset declares a few namespaces; saxes keeps all of an element's until it opens. */
export const SITEMAP_MAX_ATTRIBUTES = 64;

/** Feeds one sitemap file to saxes piece by piece: `write` each piece of text, then `end`. */
export interface SitemapReader {
  write(text: string): void;
  end(): SitemapFile;
}

/**
 * The parser behind parseSitemap and the parsing thread (./site-file-thread.ts).
 * Throws SitemapError for anything that is not a sitemap, the error saxes
 * throws for text that is not XML (parseSitemap turns it into a SitemapError).
 */
export function sitemapReader(url: string, maxEntries = SITEMAP_MAX_ENTRIES): SitemapReader {
  const parser = new SaxesParser({ xmlns: false });
  // Names of the open elements down to `loc`: deeper ones only count (none of them is read).
  const path: string[] = [];
  let depth = 0;
  let attributes = 0;
  let kind: SitemapKind | null = null;
  const entries: SitemapEntry[] = [];
  let skipped = 0;
  let loc: string | null = null;
  let lastmod: string | null = null;
  let field: 'loc' | 'lastmod' | null = null;
  let value = '';

  parser.on('opentagstart', () => {
    attributes = 0;
  });
  parser.on('attribute', () => {
    if (++attributes > SITEMAP_MAX_ATTRIBUTES)
      throw new SitemapError(`${url} is not a sitemap: an element has more than ${SITEMAP_MAX_ATTRIBUTES} attributes`);
  });
  parser.on('opentag', (tag) => {
    if (depth >= SITEMAP_MAX_DEPTH)
      throw new SitemapError(
        `${url} is not a sitemap: its elements are nested more than ${SITEMAP_MAX_DEPTH} deep (a sitemap has 3 or 4 levels)`,
      );
    const name = local(tag.name);
    if (depth === 0) {
      if (name !== 'urlset' && name !== 'sitemapindex')
        throw new SitemapError(
          `${url} is not a sitemap: its root element is <${tag.name.slice(0, 100)}>, not <urlset> or <sitemapindex>`,
        );
      kind = name;
    } else if (depth === 1 && name === (kind === 'urlset' ? 'url' : 'sitemap')) {
      loc = null;
      lastmod = null;
    } else if (
      depth === 2 &&
      (name === 'loc' || name === 'lastmod') &&
      path[1] === (kind === 'urlset' ? 'url' : 'sitemap')
    ) {
      field = name;
      value = '';
    }
    if (depth < 3) path.push(name);
    depth++;
  });
  const onText = (text: string) => {
    // A runaway value is not kept growing; it is skipped when its element ends.
    if (field && value.length <= LOC_MAX) value += text;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', () => {
    depth--;
    const name = depth < 3 ? path.pop() : undefined;
    if (field && depth === 2) {
      const v = value.trim();
      if (field === 'loc') loc = v.length > 0 && v.length <= LOC_MAX ? v : '';
      else lastmod = v.slice(0, 40) || null;
      field = null;
    } else if (depth === 1 && (name === 'url' || name === 'sitemap')) {
      if (loc) {
        if (entries.length >= maxEntries)
          throw new SitemapError(
            `${url} lists more than ${maxEntries.toLocaleString('en-US')} entries, the protocol’s limit for one file`,
          );
        entries.push({ loc, lastmod });
      } else skipped++;
    }
  });

  return {
    write: (text) => void parser.write(text),
    end() {
      parser.close();
      if (!kind) throw new SitemapError(`${url} is not a sitemap: it is empty`);
      return { kind, entries, skipped };
    },
  };
}

/** Why text that saxes refused is not a sitemap. */
export function notXml(url: string, err: unknown): SitemapError {
  return new SitemapError(
    `${url} is not a sitemap: not well-formed XML (${String((err as Error)?.message).slice(0, 200)})`,
  );
}

/** Reads one sitemap file as it downloads (tests, and the parsing thread over the bytes it was handed). */
export async function parseSitemap(
  chunks: AsyncIterable<Uint8Array>,
  url: string,
  maxEntries = SITEMAP_MAX_ENTRIES,
): Promise<SitemapFile> {
  const reader = sitemapReader(url, maxEntries);
  const decoder = new TextDecoder('utf-8');
  try {
    for await (const chunk of chunks) reader.write(decoder.decode(chunk, { stream: true }));
    reader.write(decoder.decode());
    return reader.end();
  } catch (err) {
    if (err instanceof SitemapError) throw err;
    // Fetch failures (size, time) pass through; anything saxes throws means the text is not XML.
    if (err instanceof Error && err.name === 'SiteFetchError') throw err;
    throw notXml(url, err);
  }
}
