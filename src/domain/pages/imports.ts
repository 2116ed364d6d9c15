import type { AppContext } from '../../context.ts';
import type { SiteJobTrigger, SiteRow, SitemapImportRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { requestSiteJob, type SiteJobSpec, waitFor } from '../common/index.ts';
import { consumeRateLimit } from '../orgs/index.ts';

/**
 * Sitemap import records: asking for one (a person, a new site, the nightly
 * schedule, the CLI), one at a time per site, and how an import is shown.
 * The import itself is `sitemap-import.ts`, run by the `sitemap-import` job.
 */

const IMPORTS: SiteJobSpec<'sitemapImports'> = {
  table: 'sitemapImports',
  staleMs: 60 * 60 * 1000,
  staleError: 'stopped: no progress for an hour (its worker stopped); a new import replaces it',
  enqueue: (ctx, row) =>
    ctx.jobs.enqueue('sitemap-import', { siteId: row.siteId, importId: row.id }, { jobId: `sitemap-import-${row.id}` }),
};

export function serializeImport(row: SitemapImportRow) {
  return {
    id: row.id,
    state: row.status,
    trigger: row.trigger,
    foundVia: row.foundVia,
    sitemaps: row.sitemaps,
    urls: row.urls,
    added: row.added,
    kept: row.kept,
    skipped: row.skipped,
    titles: { read: row.titles, failed: row.titlesFailed },
    notes: row.notes,
    error: row.error,
    requestedAt: row.requestedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}
export type ImportView = ReturnType<typeof serializeImport>;

const isFinal = (v: { state: string }) => v.state === 'done' || v.state === 'failed';

export async function latestImport(ctx: AppContext, siteId: number): Promise<SitemapImportRow | null> {
  return (
    (await ctx.db
      .selectFrom('sitemapImports')
      .selectAll()
      .where('siteId', '=', siteId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst()) ?? null
  );
}

async function findImport(ctx: AppContext, siteId: number, importId: number): Promise<SitemapImportRow> {
  const row = await ctx.db
    .selectFrom('sitemapImports')
    .selectAll()
    .where('id', '=', importId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No sitemap import with id ${importId}`);
  return row;
}

/**
 * Queues an import of the site's sitemaps, or answers the one already queued
 * or running (a partial unique index allows one per site).
 */
export async function requestSitemapImport(
  ctx: AppContext,
  site: Pick<SiteRow, 'id'>,
  userId: number | null,
  trigger: SiteJobTrigger,
  options: { queue?: boolean } = {},
): Promise<{ import: SitemapImportRow; created: boolean }> {
  const { row, created } = await requestSiteJob(ctx, IMPORTS, site.id, userId, trigger, options.queue !== false);
  return { import: row, created };
}

/**
 * POST /projects/:id/pages/import-sitemap: at most 10 an hour per site;
 * answers the import when it ends within a few seconds, else its progress.
 */
export async function importSitemapNow(ctx: AppContext, site: SiteRow, userId: number) {
  await consumeRateLimit(ctx, 'sitemapImport', site.id);
  const { import: row } = await requestSitemapImport(ctx, site, userId, 'manual');
  const view = await waitFor(
    async () => serializeImport(await findImport(ctx, site.id, row.id)),
    isFinal,
    ctx.config.siteFetch.jobWaitMs,
  );
  return { import: view };
}

/** Marks an import failed once its job has used its last attempt, so it does not hold the site's one active import. */
export async function failImport(ctx: AppContext, importId: number, message: string): Promise<void> {
  await ctx.db
    .updateTable('sitemapImports')
    .set({ status: 'failed', error: message, finishedAt: ctx.clock.now() })
    .where('id', '=', importId)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** The nightly import of every site's sitemaps (a BullMQ job scheduler): pages added since are listed the next morning. */
export async function runSitemapImportTick(ctx: AppContext): Promise<{ queued: number }> {
  let queued = 0;
  let lastId = 0;
  for (;;) {
    const sites = await ctx.db
      .selectFrom('sites')
      .select('id')
      .where('id', '>', lastId)
      .orderBy('id')
      .limit(500)
      .execute();
    if (sites.length === 0) return { queued };
    for (const site of sites) if ((await requestSitemapImport(ctx, site, null, 'schedule')).created) queued++;
    lastId = (sites.at(-1) as { id: number }).id;
  }
}
