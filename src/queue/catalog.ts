import { z } from 'zod';

/**
 * The job catalog: every job's name, queue, payload schema and retry policy.
 * Producers call `enqueue` with a name from here; workers check at start that
 * every name has exactly one handler (jobs/index.ts) and validate payloads
 * when they pick a job up. Payloads carry ids, never secrets.
 */
export const JOBS = {
  reanalyse: {
    queue: 'reanalyse',
    payload: z.object({ siteId: z.number().int().positive(), reanalysisId: z.number().int().positive() }),
    attempts: 3,
    backoffMs: 2_000,
  },
  scan: {
    queue: 'scan',
    payload: z.object({ scanId: z.number().int().positive() }),
    // Resumable by construction (answers already stored are skipped), so retries are safe.
    attempts: 5,
    backoffMs: 5_000,
  },
  'schedule-tick': {
    queue: 'schedule',
    payload: z.object({}),
    attempts: 3,
    backoffMs: 60_000,
  },
  'scan-reconcile': {
    queue: 'schedule',
    payload: z.object({}),
    // The next minute's run is the retry.
    attempts: 1,
    backoffMs: 0,
  },
  rewrite: {
    queue: 'rewrite',
    payload: z.object({ siteId: z.number().int().positive() }),
    attempts: 2,
    backoffMs: 10_000,
  },
  // A customer site's answers (a bad sitemap, a timeout) end the import or check with their message,
  // without a retry; attempts cover a worker that died or a database that was away.
  'sitemap-import': {
    queue: 'site-fetch',
    payload: z.object({ siteId: z.number().int().positive(), importId: z.number().int().positive() }),
    attempts: 3,
    backoffMs: 30_000,
  },
  'crawler-check': {
    queue: 'site-fetch',
    payload: z.object({ siteId: z.number().int().positive(), checkId: z.number().int().positive() }),
    attempts: 3,
    backoffMs: 30_000,
  },
  'sitemap-import-tick': {
    queue: 'schedule',
    payload: z.object({}),
    attempts: 3,
    backoffMs: 60_000,
  },
  'crawler-check-tick': {
    queue: 'schedule',
    payload: z.object({}),
    attempts: 3,
    backoffMs: 60_000,
  },
  // Reads a server log into crawler traffic. A retry resumes after the lines already committed; a log's own
  // problems (a line that does not parse, a truncated gzip file) end the import with its message, not a retry.
  'log-import': {
    queue: 'traffic',
    payload: z.object({ siteId: z.number().int().positive(), importId: z.number().int().positive() }),
    attempts: 3,
    backoffMs: 30_000,
  },
  // Makes next months' answer partitions and drops what workspaces no longer keep; idempotent, so a retry is safe.
  'retention-tick': {
    queue: 'schedule',
    payload: z.object({}),
    attempts: 3,
    backoffMs: 10 * 60_000,
  },
  // One attempt of a webhook delivery (domain/webhooks/deliver.ts): a failed answer re-delays the job on the
  // delivery's own schedule (docs/webhooks.md "Retries"), not through these attempts, which cover a worker that
  // died or a database that was away; the reconciler re-queues a delivery whose job is gone.
  'webhook-delivery': {
    queue: 'webhook',
    payload: z.object({ deliveryId: z.number().int().positive(), replay: z.number().int().positive().optional() }),
    attempts: 5,
    backoffMs: 5_000,
  },
  'webhook-reconcile': {
    queue: 'schedule',
    payload: z.object({}),
    // The next run is the retry.
    attempts: 1,
    backoffMs: 0,
  },
  // Compares each site's period that just ended with the one before and fires what changed for real.
  'webhook-period-tick': {
    queue: 'schedule',
    payload: z.object({}),
    attempts: 3,
    backoffMs: 10 * 60_000,
  },
} as const;

export type JobName = keyof typeof JOBS;

/** Repeating jobs, registered (idempotently) by every worker that serves their queue. */
export const SCHEDULES = [
  { id: 'nightly-scans', job: 'schedule-tick', pattern: '0 0 * * *' },
  { id: 'scan-reconcile', job: 'scan-reconcile', pattern: '* * * * *' },
  { id: 'nightly-crawler-checks', job: 'crawler-check-tick', pattern: '0 2 * * *' },
  { id: 'nightly-sitemap-imports', job: 'sitemap-import-tick', pattern: '0 3 * * *' },
  { id: 'nightly-retention', job: 'retention-tick', pattern: '0 4 * * *' },
  { id: 'webhook-reconcile', job: 'webhook-reconcile', pattern: '* * * * *' },
  { id: 'daily-period-changes', job: 'webhook-period-tick', pattern: '30 0 * * *' },
] as const satisfies readonly { id: string; job: JobName; pattern: string }[];
export type JobPayload<N extends JobName> = z.output<(typeof JOBS)[N]['payload']>;
export const JOB_NAMES = Object.keys(JOBS) as JobName[];
export const QUEUE_NAMES = [...new Set(JOB_NAMES.map((n) => JOBS[n].queue))];
