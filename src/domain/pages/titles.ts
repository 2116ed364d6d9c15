import pLimit from 'p-limit';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { headBytes } from '../../web/html-title.ts';
import { CRAWLER_TOKEN, type SiteFetcher } from '../../web/site-fetch.ts';
import { SiteFileError } from '../../web/site-file-error.ts';
import type { SiteFileReader } from '../../web/site-file-pool.ts';
import type { RobotsSource } from '../../web/site-file-thread.ts';

/**
 * Page titles, read from the pages themselves: a few at a time (a customer's
 * site is not a load test), only where the site's robots.txt lets our
 * crawler in (asked once for every page, on a parsing thread), each page's
 * head only, parsed on a parsing thread.
 */

/** Pages fetched at once per import. */
export const TITLE_CONCURRENCY = 4;
/** A page's head is in its first bytes; the rest is never needed. */
const PAGE_MAX_BYTES = 2 << 20;
const PAGE_TIMEOUT_MS = 10_000;

export interface TitleResult {
  title: string | null;
  error: string | null;
}

// Pages listed as http:// are read over https, the only scheme fetched.
const targetOf = (url: string) => url.replace(/^http:/i, 'https:');

async function titleOf(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  target: string,
  allowed: boolean,
  signal: AbortSignal,
): Promise<TitleResult> {
  if (!allowed) return { title: null, error: `robots.txt does not let ${CRAWLER_TOKEN} read this page` };
  try {
    const res = await fetcher.get(target, {
      maxBytes: PAGE_MAX_BYTES,
      overflow: 'truncate',
      accept: 'text/html',
      timeoutMs: PAGE_TIMEOUT_MS,
      signal,
    });
    if (res.status !== 200) {
      res.discard();
      return { title: null, error: `answered ${res.status}` };
    }
    if (res.contentType && !/html/i.test(res.contentType)) {
      res.discard();
      return { title: null, error: `not an HTML page (${res.contentType.split(';')[0]})` };
    }
    const title = await reader.title(target, await headBytes(res.body()));
    return { title, error: title ? null : 'no title' };
  } catch (err) {
    if (err instanceof SiteFetchError || err instanceof SiteFileError)
      return { title: null, error: err.message.slice(0, 300) };
    throw err;
  }
}

export async function fetchTitles(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  urls: { normalizedUrl: string; url: string }[],
  robots: RobotsSource | null,
  options: { signal: AbortSignal; onProgress?: (done: number) => void },
): Promise<Map<string, TitleResult>> {
  const limit = pLimit(TITLE_CONCURRENCY);
  const results = new Map<string, TitleResult>();
  const targets = urls.map((page) => targetOf(page.url));
  // A robots.txt its thread cannot read in time ends the import (SiteFileError), rather than reading pages it may forbid.
  const allowed = robots ? await reader.robotsAllows(robots, CRAWLER_TOKEN, targets) : targets.map(() => true);
  await Promise.all(
    urls.map((page, i) =>
      limit(async () => {
        if (options.signal.aborted) return;
        results.set(
          page.normalizedUrl,
          await titleOf(fetcher, reader, targets[i] as string, allowed[i] ?? true, options.signal),
        );
        options.onProgress?.(results.size);
      }),
    ),
  );
  if (options.signal.aborted) throw options.signal.reason as Error;
  return results;
}
