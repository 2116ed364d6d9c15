import { z } from 'zod';

/**
 * Each job's payload, by the job's name: the words the domain queues with
 * (`ctx.jobs.enqueue('scan', { scanId })`) and the job table in jobs/
 * validates with. Kept here, in the shared vocabulary, so `AppContext`
 * types its queues from this map and never from the table, which imports
 * every handler and so the whole domain. The table has one row per name,
 * each row's `payload` this map's schema of that name (a type check and
 * test/unit/job-table.test.ts hold it so).
 *
 * Ids, never secrets: payloads are stored in Redis.
 */

const id = z.number().int().positive();
const none = z.object({});

export const JOB_PAYLOADS = {
  scan: z.object({ scanId: id }),
  'scan-tick': none,
  'scan-reconcile': none,
  reanalysis: z.object({ siteId: id, reanalysisId: id }),
  rewrite: z.object({ siteId: id }),
  'sitemap-import': z.object({ siteId: id, importId: id }),
  'sitemap-import-tick': none,
  'crawler-check': z.object({ siteId: id, checkId: id }),
  'crawler-check-tick': none,
  'log-import': z.object({ siteId: id, importId: id }),
  'retention-tick': none,
  'webhook-delivery': z.object({ deliveryId: id, replay: id.optional() }),
  'webhook-reconcile': none,
  'webhook-period-tick': none,
};

/** A job's name -> its payload as validated (what its handler gets and what is queued). */
export type JobPayloads = { [N in keyof typeof JOB_PAYLOADS]: z.output<(typeof JOB_PAYLOADS)[N]> };
