import type { z } from 'zod';
import { runRetentionTick } from '../src/domain/facts/index.ts';
import { Later, BUSY, JOB_PAYLOADS, type JobPayloads } from '../src/domain/common/index.ts';
import { failCrawlerCheck, runCrawlerCheckTick, runCrawlerCheck } from '../src/domain/crawlers/index.ts';
import { failImport, runSitemapImportTick, runSitemapImport } from '../src/domain/pages/index.ts';
import { runRewrite } from '../src/domain/prompts/index.ts';
import { runReanalysis } from '../src/domain/reanalysis/index.ts';
import { runScanReconcile, failScan, runScan, runScanTick } from '../src/domain/scans/index.ts';
import { failLogImport, runLogImport } from '../src/domain/traffic/index.ts';
import { runWebhookDelivery, runWebhookPeriodTick, runWebhookReconcile } from '../src/domain/webhooks/index.ts';
import type { JobRow } from '../src/queue/job-row.ts';
import { RetryLaterError } from '../src/queue/retry-later.ts';

/**
 * The job table: one row per kind of job, keyed by its one name (the BullMQ
 * job's name, its scheduler's id, its metrics label, its name in the docs),
 * with its queue, payload, retry policy, schedule, handler and what happens
 * once its attempts are used up. Handlers are thin: take the validated
 * payload, call one domain use case (named `run` + the job's name), return
 * its summary. Producers queue through `ctx.jobs.enqueue(name, ...)`
 * (src/queue/queues.ts); workers (src/queue/worker.ts) run the rows.
 *
 * The payload schemas are the shared vocabulary's (`JOB_PAYLOADS`,
 * src/domain/common/job-payloads.ts), so the context types its queues
 * without importing this table: the table's type holds each row to its
 * name's schema, and test/unit/job-table.test.ts to the very same one.
 */

/** How long a job whose site is locked by another job waits before it tries again. */
const SITE_BUSY_RETRY_MS = 2_000;

/**
 * A row, its handler typed from its own payload schema. The job layer decides
 * what a wait means: a site lock held elsewhere (BUSY) or a use case's
 * `Later` re-delays the job (RetryLaterError) instead of holding a worker slot.
 */
function job<S extends z.ZodType>(row: JobRow<S>): JobRow<S> {
  return {
    ...row,
    async run(ctx, payload) {
      const result = await row.run(ctx, payload);
      if (result === BUSY) throw new RetryLaterError('the site is locked by another job', SITE_BUSY_RETRY_MS);
      if (result instanceof Later) throw new RetryLaterError(result.reason, result.delayMs);
      return result;
    },
  };
}

/** The table's type: a row for every payload name, its handler typed by that name's schema. */
type JobTableRows = { [N in keyof JobPayloads]: JobRow<(typeof JOB_PAYLOADS)[N]> };

export const JOBS: JobTableRows = {
  scan: job({
    queue: 'scan',
    payload: JOB_PAYLOADS.scan,
    // Resumable by construction (answers already stored are skipped), so retries are safe.
    attempts: 5,
    backoffMs: 5_000,
    run: (ctx, { scanId }) => runScan(ctx, scanId),
    exhausted: (ctx, { scanId }, error) => failScan(ctx, scanId, error.message),
  }),
  // Starts the scans that are due (each site's schedule).
  'scan-tick': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['scan-tick'],
    attempts: 3,
    backoffMs: 60_000,
    schedule: { pattern: '0 0 * * *' },
    run: (ctx) => runScanTick(ctx),
  }),
  // Queues again a scan left with no live job (a crash, Redis data lost), or ends it.
  'scan-reconcile': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['scan-reconcile'],
    // The next run is the retry.
    attempts: 1,
    backoffMs: 0,
    // A setting, not a wall-clock time (fault tests shorten it).
    schedule: { everyMs: (config) => config.scans.reconcileMs },
    run: (ctx) => runScanReconcile(ctx),
  }),
  reanalysis: job({
    queue: 'reanalysis',
    payload: JOB_PAYLOADS.reanalysis,
    attempts: 3,
    backoffMs: 2_000,
    run: (ctx, { siteId, reanalysisId }) => runReanalysis(ctx, siteId, reanalysisId),
  }),
  rewrite: job({
    queue: 'rewrite',
    payload: JOB_PAYLOADS.rewrite,
    attempts: 2,
    backoffMs: 10_000,
    run: (ctx, { siteId }) => runRewrite(ctx, siteId),
  }),
  // A customer site's answers (a bad sitemap, a timeout) end the import or check with their message,
  // without a retry; attempts cover a worker that died or a database that was away.
  'sitemap-import': job({
    queue: 'site-fetch',
    payload: JOB_PAYLOADS['sitemap-import'],
    attempts: 3,
    backoffMs: 30_000,
    run: (ctx, { siteId, importId }) => runSitemapImport(ctx, siteId, importId),
    exhausted: (ctx, { importId }, error) => failImport(ctx, importId, `the import stopped: ${error.message}`),
  }),
  'sitemap-import-tick': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['sitemap-import-tick'],
    attempts: 3,
    backoffMs: 60_000,
    schedule: { pattern: '0 3 * * *' },
    run: (ctx) => runSitemapImportTick(ctx),
  }),
  'crawler-check': job({
    queue: 'site-fetch',
    payload: JOB_PAYLOADS['crawler-check'],
    attempts: 3,
    backoffMs: 30_000,
    run: (ctx, { siteId, checkId }) => runCrawlerCheck(ctx, siteId, checkId),
    exhausted: (ctx, { checkId }, error) => failCrawlerCheck(ctx, checkId, `the check stopped: ${error.message}`),
  }),
  'crawler-check-tick': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['crawler-check-tick'],
    attempts: 3,
    backoffMs: 60_000,
    schedule: { pattern: '0 2 * * *' },
    run: (ctx) => runCrawlerCheckTick(ctx),
  }),
  // Reads a server log into crawler traffic. A retry resumes after the lines already committed; a log's own
  // problems (a line that does not parse, a truncated gzip file) end the import with its message, not a retry.
  'log-import': job({
    queue: 'traffic',
    payload: JOB_PAYLOADS['log-import'],
    attempts: 3,
    backoffMs: 30_000,
    run: (ctx, { siteId, importId }) => runLogImport(ctx, siteId, importId),
    exhausted: (ctx, { importId }, error) =>
      failLogImport(ctx, importId, `the import stopped: ${error.message}; the lines before were counted`),
  }),
  // Makes next months' answer partitions and drops what workspaces no longer keep; idempotent, so a retry is safe.
  'retention-tick': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['retention-tick'],
    attempts: 3,
    backoffMs: 10 * 60_000,
    schedule: { pattern: '0 4 * * *' },
    run: (ctx) => runRetentionTick(ctx),
  }),
  // One attempt of a webhook delivery (domain/webhooks/deliver.ts): a failed answer re-delays the job on the
  // delivery's own schedule (docs/webhooks.md "Retries"), not through these attempts, which cover a worker that
  // died or a database that was away; the reconciler re-queues a delivery whose job is gone.
  'webhook-delivery': job({
    queue: 'webhook',
    payload: JOB_PAYLOADS['webhook-delivery'],
    attempts: 5,
    backoffMs: 5_000,
    run: (ctx, { deliveryId, replay }) => runWebhookDelivery(ctx, deliveryId, { replay: replay !== undefined }),
  }),
  'webhook-reconcile': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['webhook-reconcile'],
    // The next run is the retry.
    attempts: 1,
    backoffMs: 0,
    schedule: { everyMs: (config) => config.webhooks.reconcileMs },
    run: (ctx) => runWebhookReconcile(ctx),
  }),
  // Compares each site's period that just ended with the one before and fires what changed for real.
  'webhook-period-tick': job({
    queue: 'schedule',
    payload: JOB_PAYLOADS['webhook-period-tick'],
    attempts: 3,
    backoffMs: 10 * 60_000,
    schedule: { pattern: '30 0 * * *' },
    run: (ctx) => runWebhookPeriodTick(ctx),
  }),
};
