import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { withSiteLock, type Busy, claimSiteJob } from '../common/index.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { siteFetcherFor, type SiteFetcher } from '../../web/site-fetch.ts';
import { SiteFileError } from '../../web/site-file-error.ts';
import { siteFileReaderFor, type SiteFileReader } from '../../web/site-file-pool.ts';
import { SitemapError } from '../../web/sitemap-parser.ts';
import { siteOrigin } from '../sites/index.ts';
import { discoverPages, ImportError, type FoundPage } from './discover.ts';
import { fetchTitles, type TitleResult } from './titles.ts';

/**
 * The `sitemap-import` job: under the site's pages lock, find the pages in
 * the sitemaps, read the titles of pages that have none (new ones first, at
 * most SITEMAP_TITLES_PER_RUN), then write every page and the import's
 * counts in one transaction. Pages listed before are kept (their last-seen
 * time moves); new ones are added. Any failure leaves the pages as they were
 * and the import `failed` with its reason.
 */

export interface ImportProgress {
  phase: 'sitemaps' | 'titles' | 'writing';
  sitemaps: number;
  urls: number;
  titles: number;
  titlesWanted: number;
}

const WRITE_CHUNK = 5000;
const PROGRESS_EVERY_MS = 500;

/** What the customer reads on a failed import. */
function failureMessage(err: unknown): { message: string; expected: boolean } {
  if (
    err instanceof SiteFetchError ||
    err instanceof SitemapError ||
    err instanceof SiteFileError ||
    err instanceof ImportError
  )
    return { message: err.message, expected: true };
  return {
    message: `the import stopped on an internal error (${(err as Error).message?.slice(0, 200) ?? String(err)})`,
    expected: false,
  };
}

async function writePages(
  db: Executor,
  siteId: number,
  pages: FoundPage[],
  titles: Map<string, TitleResult>,
  now: Date,
): Promise<{ added: number; total: number }> {
  let added = 0;
  let total = 0;
  for (let i = 0; i < pages.length; i += WRITE_CHUNK) {
    const chunk = pages.slice(i, i + WRITE_CHUNK);
    const title = (p: FoundPage) => titles.get(p.normalizedUrl);
    const result = await sql<{ added: string; total: string }>`
      WITH up AS (
        INSERT INTO pages (site_id, url, normalized_url, path, section, lastmod, title, title_fetched_at, title_error, first_seen_at, last_seen_at)
        SELECT ${siteId}, u.url, u.n, u.path, u.section, u.lastmod, u.title, u.fetched, u.error, ${now}, ${now}
          FROM unnest(${chunk.map((p) => p.url)}::text[], ${chunk.map((p) => p.normalizedUrl)}::text[], ${chunk.map((p) => p.path)}::text[],
                      ${chunk.map((p) => p.section)}::text[], ${chunk.map((p) => p.lastmod)}::timestamptz[], ${chunk.map((p) => title(p)?.title ?? null)}::text[],
                      ${chunk.map((p) => (title(p) ? now : null))}::timestamptz[], ${chunk.map((p) => title(p)?.error ?? null)}::text[])
               AS u(url, n, path, section, lastmod, title, fetched, error)
        ON CONFLICT (site_id, normalized_url) DO UPDATE SET
          last_seen_at = excluded.last_seen_at,
          lastmod = coalesce(excluded.lastmod, pages.lastmod),
          -- A title read now replaces the stored one; a page not read this time keeps its own.
          title = CASE WHEN excluded.title_fetched_at IS NULL THEN pages.title ELSE coalesce(excluded.title, pages.title) END,
          title_error = CASE WHEN excluded.title_fetched_at IS NULL THEN pages.title_error ELSE excluded.title_error END,
          title_fetched_at = coalesce(excluded.title_fetched_at, pages.title_fetched_at)
        RETURNING (xmax = 0) AS inserted
      )
      SELECT count(*) FILTER (WHERE inserted) AS added, count(*) AS total FROM up`.execute(db);
    added += Number(result.rows[0]?.added ?? 0);
    total += Number(result.rows[0]?.total ?? 0);
  }
  return { added, total };
}

/** Keeps the import's counters current for whoever watches it, at most twice a second, never after it ends. */
function progressWriter(ctx: AppContext, importId: number, onProgress?: (p: ImportProgress) => void) {
  let last = 0;
  let pending: Promise<unknown> = Promise.resolve();
  const current: ImportProgress = { phase: 'sitemaps', sitemaps: 0, urls: 0, titles: 0, titlesWanted: 0 };
  return {
    update(change: Partial<ImportProgress>) {
      Object.assign(current, change);
      onProgress?.({ ...current });
      if (Date.now() - last < PROGRESS_EVERY_MS) return;
      last = Date.now();
      pending = pending.then(() =>
        ctx.db
          .updateTable('sitemapImports')
          .set({ sitemaps: current.sitemaps, urls: current.urls, titles: current.titles })
          .where('id', '=', importId)
          .where('status', '=', 'running')
          .execute()
          .catch(() => undefined),
      );
    },
    settled: () => pending,
  };
}

export async function runSitemapImport(
  ctx: AppContext,
  siteId: number,
  importId: number,
  options: { fetcher?: SiteFetcher; reader?: SiteFileReader; onProgress?: (p: ImportProgress) => void } = {},
): Promise<{ state: 'done' | 'failed' | 'skipped'; urls?: number; added?: number; error?: string } | Busy> {
  return withSiteLock(
    ctx,
    siteId,
    async (lost) => {
      const started = Date.now();
      const site = await claimSiteJob(ctx, 'sitemapImports', siteId, importId);
      if (!site) return { state: 'skipped' };
      const log = ctx.logger.child({ siteId, importId });
      const fetcher = options.fetcher ?? siteFetcherFor(ctx.config, log);
      const reader = options.reader ?? siteFileReaderFor(ctx.config, ctx.siteFilePool());
      const progress = progressWriter(ctx, importId, options.onProgress);
      const notes: string[] = [];
      try {
        const found = await discoverPages(
          fetcher,
          reader,
          { domain: site.domain, origin: siteOrigin(site) },
          { signal: lost, onProgress: (p) => progress.update(p) },
        );
        notes.push(...found.notes);
        const known = new Map(
          (
            await ctx.db
              .selectFrom('pages')
              .select(['normalizedUrl', 'titleFetchedAt'])
              .where('siteId', '=', siteId)
              .execute()
          ).map((r) => [r.normalizedUrl, r.titleFetchedAt]),
        );
        const pages = [...found.pages.values()];
        // New pages first, then listed ones never read; pages read once keep their title.
        const untitled = [
          ...pages.filter((p) => !known.has(p.normalizedUrl)),
          ...pages.filter((p) => known.has(p.normalizedUrl) && known.get(p.normalizedUrl) === null),
        ];
        const cap = ctx.config.siteFetch.titlesPerRun;
        const wanted = untitled.slice(0, cap);
        if (untitled.length > cap && cap > 0)
          notes.push(
            `${(untitled.length - cap).toLocaleString('en-US')} pages still have no title; each import reads up to ${cap} more`,
          );
        progress.update({ phase: 'titles', titlesWanted: wanted.length });
        const titles = wanted.length
          ? await fetchTitles(fetcher, reader, wanted, found.robots, {
              signal: lost,
              onProgress: (n) => progress.update({ titles: n }),
            })
          : new Map<string, TitleResult>();
        const titlesRead = [...titles.values()].filter((t) => t.title !== null).length;
        progress.update({ phase: 'writing' });
        await progress.settled();
        const now = ctx.clock.now();
        const { added, total } = await ctx.db.transaction().execute(async (trx) => {
          const counts = await writePages(trx, siteId, pages, titles, now);
          await trx
            .updateTable('sitemapImports')
            .set({
              status: 'done',
              foundVia: found.foundVia,
              sitemaps: found.sitemaps,
              urls: pages.length,
              skipped: found.skipped,
              added: counts.added,
              kept: counts.total - counts.added,
              titles: titlesRead,
              titlesFailed: titles.size - titlesRead,
              notes,
              finishedAt: now,
            })
            .where('id', '=', importId)
            .execute();
          return counts;
        });
        log.info(
          { sitemaps: found.sitemaps, urls: total, added, titles: titlesRead, ms: Date.now() - started },
          'sitemap import done',
        );
        return { state: 'done', urls: total, added };
      } catch (err) {
        await progress.settled();
        const { message, expected } = failureMessage(lost.aborted ? (lost.reason ?? err) : err);
        if (expected) log.warn({ reason: message }, 'sitemap import failed');
        else log.error({ err }, 'sitemap import failed');
        await ctx.db
          .updateTable('sitemapImports')
          .set({ status: 'failed', error: message, notes, finishedAt: ctx.clock.now() })
          .where('id', '=', importId)
          .execute();
        return { state: 'failed', error: message };
      }
    },
    'pages',
  );
}
