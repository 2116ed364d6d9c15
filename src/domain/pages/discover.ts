import { hostMatches, normaliseUrl } from '../../analysis/index.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { ROBOTS_MAX_BYTES } from '../../web/robots.ts';
import type { SiteFetcher } from '../../web/site-fetch.ts';
import type { SiteFileReader } from '../../web/site-file-pool.ts';
import type { RobotsSource } from '../../web/site-file-thread.ts';
import { SITEMAP_MAX_BYTES } from '../../web/sitemap-parser.ts';

/**
 * Finds a site's pages in its sitemaps: the `Sitemap:` lines of robots.txt,
 * else `/sitemap.xml`; indexes followed (nested too, to a depth), `.xml.gz`
 * unwrapped, each file held to the protocol's 50,000 entries and 50 MB and
 * parsed on a parsing thread (src/web/site-file-pool.ts). Only URLs on the
 * site's domain (or a subdomain) are kept. Writes nothing: the import
 * writes what this returns in one transaction.
 */

/** Index levels below the sitemaps robots.txt names (the protocol allows one; sites nest more). */
export const MAX_DEPTH = 4;
/** Sitemap files read per import at most. */
export const MAX_FILES = 1000;
/** Pages kept per import at most. */
export const MAX_URLS = 200_000;

/** The import cannot go on: the message says why, for the customer. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportError';
  }
}

export interface FoundPage {
  url: string;
  normalizedUrl: string;
  path: string;
  section: string;
  lastmod: Date | null;
}

export interface Discovery {
  foundVia: 'robots' | 'default';
  sitemaps: number;
  pages: Map<string, FoundPage>;
  /** Listed URLs not kept: another domain, not http(s), or unusable. */
  skipped: number;
  notes: string[];
  /** The site's robots.txt, when it has one: page titles are read only where it lets us. */
  robots: RobotsSource | null;
}

export interface DiscoverProgress {
  sitemaps: number;
  urls: number;
}

const ACCEPT_XML = 'application/xml, text/xml;q=0.9, */*;q=0.5';

function foundPage(loc: string, base: string, domain: string, lastmod: string | null): FoundPage | null {
  let url: URL;
  try {
    url = new URL(loc, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (!hostMatches(url.hostname.toLowerCase().replace(/\.$/, ''), domain)) return null;
  url.hash = '';
  const normalized = normaliseUrl(url.href);
  if (!normalized) return null;
  const when = lastmod ? new Date(lastmod) : null;
  return {
    url: url.href,
    normalizedUrl: normalized.url,
    path: url.pathname,
    section: url.pathname.split('/')[1] ?? '',
    lastmod: when && !Number.isNaN(when.getTime()) ? when : null,
  };
}

/** robots.txt as fetched, with its Sitemap lines (read on a parsing thread); null when there is none to read. */
async function readRobots(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  origin: string,
  signal: AbortSignal,
  notes: string[],
): Promise<{ source: RobotsSource; sitemaps: string[] } | null> {
  const url = `${origin}/robots.txt`;
  let source: RobotsSource;
  try {
    const res = await fetcher.get(url, {
      maxBytes: ROBOTS_MAX_BYTES,
      overflow: 'truncate',
      accept: 'text/plain',
      signal,
    });
    if (res.status !== 200) {
      res.discard();
      return null;
    }
    const text = await res.text();
    source = { url, text, truncated: res.truncated };
  } catch (err) {
    // A refused address is the site sending us somewhere we never go: that ends the import.
    if (err instanceof SiteFetchError && err.kind !== 'refused') {
      notes.push(`robots.txt could not be read (${err.message}); /sitemap.xml tried instead`);
      return null;
    }
    throw err;
  }
  // A robots.txt its thread cannot read in time ends the import (SiteFileError).
  const { sitemaps } = await reader.robots(source, []);
  return { source, sitemaps };
}

export async function discoverPages(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  site: { domain: string; origin: string },
  options: { signal: AbortSignal; onProgress?: (p: DiscoverProgress) => void },
): Promise<Discovery> {
  const notes: string[] = [];
  const robots = await readRobots(fetcher, reader, site.origin, options.signal, notes);
  const listed = [...new Set((robots?.sitemaps ?? []).filter((u) => URL.canParse(u)).map((u) => new URL(u).href))];
  const foundVia = listed.length ? 'robots' : 'default';
  const roots = listed.length ? listed : [`${site.origin}/sitemap.xml`];

  const pages = new Map<string, FoundPage>();
  const seen = new Set<string>(roots);
  const stack = roots.map((url) => ({ url, depth: 0, ancestors: [] as string[] })).reverse();
  let sitemaps = 0;
  let skipped = 0;
  let full = false;

  while (stack.length > 0 && !full) {
    if (options.signal.aborted) throw options.signal.reason as Error;
    const file = stack.pop() as (typeof stack)[number];
    if (sitemaps >= MAX_FILES) {
      notes.push(`stopped after ${MAX_FILES} sitemap files, the most read in one import`);
      break;
    }
    const res = await fetcher.get(file.url, {
      maxBytes: SITEMAP_MAX_BYTES,
      gunzipFiles: true,
      accept: ACCEPT_XML,
      signal: options.signal,
    });
    if (res.status !== 200) {
      res.discard();
      if (foundVia === 'default')
        notes.push(`no sitemap: robots.txt lists none and ${file.url} answered ${res.status}`);
      else notes.push(`${file.url} answered ${res.status}; skipped`);
      continue;
    }
    const parsed = await reader.sitemap(res.url, await res.bytes());
    sitemaps++;
    skipped += parsed.skipped;
    if (parsed.kind === 'sitemapindex') {
      if (file.depth >= MAX_DEPTH)
        throw new ImportError(`sitemap indexes are nested more than ${MAX_DEPTH} levels deep (at ${file.url})`);
      const children: typeof stack = [];
      for (const entry of parsed.entries) {
        let child: string;
        try {
          child = new URL(entry.loc, res.url).href;
        } catch {
          skipped++;
          continue;
        }
        const path = [...file.ancestors, file.url];
        if (path.includes(child))
          throw new ImportError(`sitemap index loop: ${[...path.slice(path.indexOf(child)), child].join(' lists ')}`);
        if (seen.has(child)) continue;
        seen.add(child);
        children.push({ url: child, depth: file.depth + 1, ancestors: path });
      }
      stack.push(...children.reverse());
    } else {
      for (const entry of parsed.entries) {
        const page = foundPage(entry.loc, res.url, site.domain, entry.lastmod);
        if (!page) {
          skipped++;
          continue;
        }
        if (pages.has(page.normalizedUrl)) continue;
        if (pages.size >= MAX_URLS) {
          notes.push(`stopped at ${MAX_URLS.toLocaleString('en-US')} pages, the most kept in one import`);
          full = true;
          break;
        }
        pages.set(page.normalizedUrl, page);
      }
    }
    options.onProgress?.({ sitemaps, urls: pages.size });
  }
  if (skipped > 0)
    notes.push(`${skipped.toLocaleString('en-US')} listed URLs were not on ${site.domain} or not usable; not kept`);
  return { foundVia, sitemaps, pages, skipped, notes, robots: robots?.source ?? null };
}
