import { readTitle } from './html-title.ts';
import { readLlmsTxt, type LlmsTxtReading } from './llms-txt.ts';
import { parseRobotsTxt, type CrawlerAccess } from './robots.ts';
import { notXml, SitemapError, sitemapReader, SITEMAP_MAX_ENTRIES, type SitemapFile } from './sitemap-parser.ts';

/**
 * A parsing thread's task (see ./site-file-pool.ts): one file from a
 * customer's site in, what the job needs of it out. Text arrives as a
 * string (robots.txt and llms.txt are at most 1 MB), sitemaps and pages as
 * bytes handed over without a copy.
 */

/** A robots.txt as fetched, kept by the job to ask about URLs later. */
export interface RobotsSource {
  url: string;
  text: string;
  /** Cut at ROBOTS_MAX_BYTES. */
  truncated: boolean;
}

/** What a job needs of a robots.txt: its sitemaps, what it ignored, and each agent's access. */
export interface RobotsReading {
  sitemaps: string[];
  unreadLines: number;
  notes: string[];
  /** In the order of the agents asked about. */
  access: CrawlerAccess[];
}

export type SiteFileTask =
  | { kind: 'robots'; robots: RobotsSource; agents: string[] }
  | { kind: 'robots-allows'; robots: RobotsSource; agent: string; urls: string[] }
  | { kind: 'llms-txt'; text: string; contentType: string | null }
  | { kind: 'sitemap'; url: string; bytes: Uint8Array; maxEntries?: number }
  | { kind: 'title'; bytes: Uint8Array };

interface Outputs {
  robots: RobotsReading;
  'robots-allows': boolean[];
  'llms-txt': LlmsTxtReading;
  sitemap: SitemapFile;
  title: string | null;
}
export type SiteFileKind = SiteFileTask['kind'];
export type SiteFileOutput<K extends SiteFileKind> = Outputs[K];

/** A file that is not a sitemap travels as its message: error classes do not cross threads. */
export type SiteFileThreadResult = { ok: true; value: Outputs[SiteFileKind] } | { ok: false; sitemapError: string };

/** Bytes are decoded a piece at a time, so the file's text is never one string. */
const PIECE = 1 << 20;

async function* pieces(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += PIECE) yield bytes.subarray(at, at + PIECE);
}

function readSitemap(url: string, bytes: Uint8Array, maxEntries: number): SitemapFile {
  const reader = sitemapReader(url, maxEntries);
  const decoder = new TextDecoder('utf-8');
  try {
    for (let at = 0; at < bytes.length; at += PIECE)
      reader.write(decoder.decode(bytes.subarray(at, at + PIECE), { stream: true }));
    reader.write(decoder.decode());
    return reader.end();
  } catch (err) {
    throw err instanceof SitemapError ? err : notXml(url, err);
  }
}

async function run(task: SiteFileTask): Promise<Outputs[SiteFileKind]> {
  switch (task.kind) {
    case 'robots': {
      const robots = parseRobotsTxt(task.robots.url, task.robots.text, task.robots.truncated);
      return {
        sitemaps: robots.sitemaps,
        unreadLines: robots.unreadLines,
        notes: robots.notes,
        access: task.agents.map((a) => robots.access(a)),
      };
    }
    case 'robots-allows': {
      const robots = parseRobotsTxt(task.robots.url, task.robots.text, task.robots.truncated);
      return task.urls.map((url) => robots.isAllowed(url, task.agent));
    }
    case 'llms-txt':
      return readLlmsTxt(task.text, task.contentType);
    case 'sitemap':
      return readSitemap(task.url, task.bytes, task.maxEntries ?? SITEMAP_MAX_ENTRIES);
    case 'title':
      return readTitle(pieces(task.bytes));
  }
}

export default async function readSiteFile(task: SiteFileTask): Promise<SiteFileThreadResult> {
  try {
    return { ok: true, value: await run(task) };
  } catch (err) {
    if (err instanceof SitemapError) return { ok: false, sitemapError: err.message };
    throw err;
  }
}
