import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CrawlerCheckRow, SiteJobTrigger, SiteRow } from '../../db/schema.ts';
import { enqueue } from '../../queue/queues.ts';
import { waitFor } from '../common/wait-for.ts';
import { crawlerReport } from './report.ts';

/**
 * Crawler check records: asking for one (a person, a new site, the nightly
 * schedule, the CLI), one at a time per site. The check itself is
 * `run-check.ts`, run by the `crawler-check` job.
 */

/** A check queued or running this long has lost its worker; a new request replaces it. */
const STALE_MS = 15 * 60 * 1000;

export async function requestCrawlerCheck(
  ctx: AppContext,
  site: Pick<SiteRow, 'id'>,
  userId: number | null,
  trigger: SiteJobTrigger,
  options: { queue?: boolean } = {},
): Promise<{ check: CrawlerCheckRow; created: boolean }> {
  const now = ctx.clock.now();
  await ctx.db
    .updateTable('crawlerChecks')
    .set({ status: 'failed', error: 'stopped: no progress for 15 minutes (its worker stopped); a new check replaces it', finishedAt: now })
    .where('siteId', '=', site.id)
    .where('status', 'in', ['queued', 'running'])
    .where(sql<Date>`coalesce(started_at, requested_at)`, '<', new Date(now.getTime() - STALE_MS))
    .execute();
  const inserted = await ctx.db
    .insertInto('crawlerChecks')
    .values({ siteId: site.id, trigger, requestedBy: userId, requestedAt: now })
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
    const active = await ctx.db.selectFrom('crawlerChecks').selectAll().where('siteId', '=', site.id).where('status', 'in', ['queued', 'running']).executeTakeFirst();
    if (!active) return requestCrawlerCheck(ctx, site, userId, trigger, options);
    return { check: active, created: false };
  }
  // The CLI runs it in its own process instead of a worker's.
  if (options.queue === false) return { check: inserted, created: true };
  try {
    await enqueue(ctx, 'crawler-check', { siteId: site.id, checkId: inserted.id }, { jobId: `crawler-check-${inserted.id}` });
  } catch (err) {
    await ctx.db
      .updateTable('crawlerChecks')
      .set({ status: 'failed', error: 'the job queue was unavailable', finishedAt: ctx.clock.now() })
      .where('id', '=', inserted.id)
      .execute();
    throw err;
  }
  return { check: inserted, created: true };
}

/** POST /projects/:id/crawlers/check: runs a check and answers what GET crawlers answers, with the check's progress if it takes longer than a few seconds. */
export async function checkCrawlersNow(ctx: AppContext, site: SiteRow, userId: number) {
  const { check } = await requestCrawlerCheck(ctx, site, userId, 'manual');
  await waitFor(
    () => ctx.db.selectFrom('crawlerChecks').select('status').where('id', '=', check.id).executeTakeFirst(),
    (row) => !row || row.status === 'done' || row.status === 'failed',
    ctx.config.siteFetch.jobWaitMs,
  );
  return crawlerReport(ctx, site);
}

/** Marks a check failed once its job has used its last attempt. */
export async function failCrawlerCheck(ctx: AppContext, checkId: number, message: string): Promise<void> {
  await ctx.db
    .updateTable('crawlerChecks')
    .set({ status: 'failed', error: message, finishedAt: ctx.clock.now() })
    .where('id', '=', checkId)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

/** The nightly check of every site (a BullMQ job scheduler): each check joins the site's history. */
export async function runNightlyChecks(ctx: AppContext): Promise<{ queued: number }> {
  let queued = 0;
  let lastId = 0;
  for (;;) {
    const sites = await ctx.db.selectFrom('sites').select('id').where('id', '>', lastId).orderBy('id').limit(500).execute();
    if (sites.length === 0) return { queued };
    for (const site of sites) if ((await requestCrawlerCheck(ctx, site, null, 'schedule')).created) queued++;
    lastId = (sites.at(-1) as { id: number }).id;
  }
}
