import pLimit from 'p-limit';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { readTitle } from '../../web/html-title.ts';
import type { RobotsTxt } from '../../web/robots.ts';
import { CRAWLER_TOKEN, type SiteFetcher } from '../../web/site-fetch.ts';

/**
 * Page titles, read from the pages themselves: a few at a time (a customer's
 * site is not a load test), only where the site's robots.txt lets our
 * crawler in, each page's head only.
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

async function titleOf(fetcher: SiteFetcher, url: string, robots: RobotsTxt | null, signal: AbortSignal): Promise<TitleResult> {
  // Pages listed as http:// are read over https, the only scheme fetched outside SITE_FETCH_MAP.
  const target = url.replace(/^http:/i, 'https:');
  if (robots && !robots.isAllowed(target, CRAWLER_TOKEN)) return { title: null, error: `robots.txt does not let ${CRAWLER_TOKEN} read this page` };
  try {
    const res = await fetcher.get(target, { maxBytes: PAGE_MAX_BYTES, overflow: 'truncate', accept: 'text/html', timeoutMs: PAGE_TIMEOUT_MS, signal });
    if (res.status !== 200) {
      res.discard();
      return { title: null, error: `answered ${res.status}` };
    }
    if (res.contentType && !/html/i.test(res.contentType)) {
      res.discard();
      return { title: null, error: `not an HTML page (${res.contentType.split(';')[0]})` };
    }
    const title = await readTitle(res.body());
    return { title, error: title ? null : 'no title' };
  } catch (err) {
    if (err instanceof SiteFetchError) return { title: null, error: err.message.slice(0, 300) };
    throw err;
  }
}

export async function fetchTitles(
  fetcher: SiteFetcher,
  urls: { normalizedUrl: string; url: string }[],
  robots: RobotsTxt | null,
  options: { signal: AbortSignal; onProgress?: (done: number) => void },
): Promise<Map<string, TitleResult>> {
  const limit = pLimit(TITLE_CONCURRENCY);
  const results = new Map<string, TitleResult>();
  await Promise.all(
    urls.map((page) =>
      limit(async () => {
        if (options.signal.aborted) return;
        results.set(page.normalizedUrl, await titleOf(fetcher, page.url, robots, options.signal));
        options.onProgress?.(results.size);
      }),
    ),
  );
  if (options.signal.aborted) throw options.signal.reason as Error;
  return results;
}
