import type { AppContext } from '../../context.ts';
import type { CrawlerCheckRow, SiteJobTrigger, SiteRow } from '../../db/schema.ts';
import { requestSiteJob, type SiteJobSpec, waitFor } from '../common/index.ts';
import { consumeRateLimit } from '../orgs/index.ts';
import { crawlerReport } from './report.ts';

/**
 * Crawler check records: asking for one (a person, a new site, the nightly
 * schedule, the CLI), one at a time per site. The check itself is
 * `run-check.ts`, run by the `crawler-check` job.
 */

const CHECKS: SiteJobSpec<'crawlerChecks'> = {
  table: 'crawlerChecks',
  staleMs: 15 * 60 * 1000,
  staleError: 'stopped: no progress for 15 minutes (its worker stopped); a new check replaces it',
  enqueue: (ctx, row) =>
    ctx.jobs.enqueue('crawler-check', { siteId: row.siteId, checkId: row.id }, { jobId: `crawler-check-${row.id}` }),
};

export async function requestCrawlerCheck(
  ctx: AppContext,
  site: Pick<SiteRow, 'id'>,
  userId: number | null,
  trigger: SiteJobTrigger,
  options: { queue?: boolean } = {},
): Promise<{ check: CrawlerCheckRow; created: boolean }> {
  const { row, created } = await requestSiteJob(ctx, CHECKS, site.id, userId, trigger, options.queue !== false);
  return { check: row, created };
}

/**
 * POST /projects/:id/crawlers/check: at most 10 an hour per site, every call
 * counted (one that joins the check already queued or running too: each
 * still holds a request open while it waits); runs a check and answers what
 * GET crawlers answers, with the check's progress if it takes longer than a
 * few seconds. A new site's check and the nightly ones do not come here.
 */
export async function checkCrawlersNow(ctx: AppContext, site: SiteRow, userId: number) {
  await consumeRateLimit(ctx, 'crawlerCheck', site.id);
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
export async function runCrawlerCheckTick(ctx: AppContext): Promise<{ queued: number }> {
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
    for (const site of sites) if ((await requestCrawlerCheck(ctx, site, null, 'schedule')).created) queued++;
    lastId = (sites.at(-1) as { id: number }).id;
  }
}
