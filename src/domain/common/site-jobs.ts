import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CrawlerCheckRow, SiteJobTrigger, SitemapImportRow } from '../../db/schema.ts';

/**
 * A site job record (a sitemap import, a crawler check): one queued or
 * running per site (a partial unique index), asked for by a person, a new
 * site, the nightly schedule or the CLI. Shared by domain/pages and
 * domain/crawlers; each says how its job is queued.
 */
type Tables = { sitemapImports: SitemapImportRow; crawlerChecks: CrawlerCheckRow };

export interface SiteJobSpec<T extends keyof Tables> {
  table: T;
  /** A record queued or running this long has lost its worker; a new request replaces it. */
  staleMs: number;
  staleError: string;
  enqueue: (ctx: AppContext, row: Tables[T]) => Promise<void>;
}

export async function requestSiteJob<T extends keyof Tables>(
  ctx: AppContext,
  spec: SiteJobSpec<T>,
  siteId: number,
  userId: number | null,
  trigger: SiteJobTrigger,
  queue: boolean,
): Promise<{ row: Tables[T]; created: boolean }> {
  const now = ctx.clock.now();
  // Both tables have every column used here; Kysely's types cannot see that through a union of names.
  const table = spec.table as 'sitemapImports';
  await ctx.db
    .updateTable(table)
    .set({ status: 'failed', error: spec.staleError, finishedAt: now })
    .where('siteId', '=', siteId)
    .where('status', 'in', ['queued', 'running'])
    .where(sql<Date>`coalesce(started_at, requested_at)`, '<', new Date(now.getTime() - spec.staleMs))
    .execute();
  const inserted = await ctx.db
    .insertInto(table)
    .values({ siteId, trigger, requestedBy: userId, requestedAt: now })
    // The index's own predicate, written as constants so Postgres matches it to the partial unique index.
    .onConflict((oc) =>
      oc
        .column('siteId')
        .where(sql<boolean>`status IN ('queued', 'running')`)
        .doNothing(),
    )
    .returningAll()
    .executeTakeFirst();
  if (!inserted) {
    const active = await ctx.db
      .selectFrom(table)
      .selectAll()
      .where('siteId', '=', siteId)
      .where('status', 'in', ['queued', 'running'])
      .executeTakeFirst();
    // Finished between the insert and this read: ask again.
    if (!active) return requestSiteJob(ctx, spec, siteId, userId, trigger, queue);
    return { row: active as unknown as Tables[T], created: false };
  }
  const row = inserted as unknown as Tables[T];
  // The CLI runs it in its own process instead of a worker's.
  if (!queue) return { row, created: true };
  try {
    await spec.enqueue(ctx, row);
  } catch (err) {
    // Not left queued with no job: it would hold the site's one active record.
    await ctx.db
      .updateTable(table)
      .set({ status: 'failed', error: 'the job queue was unavailable', finishedAt: ctx.clock.now() })
      .where('id', '=', inserted.id)
      .execute();
    throw err;
  }
  return { row, created: true };
}

/**
 * The start of a site job's run: marks the record running if it is still
 * queued or running (a retried job resumes it) and reads the site it is
 * for. Null when either is gone (cancelled, replaced as stale, site deleted):
 * the job then has nothing to do.
 */
export async function claimSiteJob<T extends keyof Tables>(ctx: AppContext, table: T, siteId: number, jobId: number) {
  // As in requestSiteJob: both tables have these columns, which Kysely cannot see through a union of names.
  const claimed = await ctx.db
    .updateTable(table as 'sitemapImports')
    .set({ status: 'running', startedAt: ctx.clock.now(), error: null })
    .where('id', '=', jobId)
    .where('siteId', '=', siteId)
    .where('status', 'in', ['queued', 'running'])
    .returning('id')
    .executeTakeFirst();
  if (!claimed) return null;
  return (
    (await ctx.db.selectFrom('sites').select(['id', 'url', 'domain']).where('id', '=', siteId).executeTakeFirst()) ??
    null
  );
}
