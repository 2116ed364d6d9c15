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
} as const;

export type JobName = keyof typeof JOBS;

/** Repeating jobs, registered (idempotently) by every worker that serves their queue. */
export const SCHEDULES = [
  { id: 'nightly-scans', job: 'schedule-tick', pattern: '0 0 * * *' },
  { id: 'scan-reconcile', job: 'scan-reconcile', pattern: '* * * * *' },
  { id: 'nightly-crawler-checks', job: 'crawler-check-tick', pattern: '0 2 * * *' },
  { id: 'nightly-sitemap-imports', job: 'sitemap-import-tick', pattern: '0 3 * * *' },
  { id: 'nightly-retention', job: 'retention-tick', pattern: '0 4 * * *' },
] as const satisfies readonly { id: string; job: JobName; pattern: string }[];
export type JobPayload<N extends JobName> = z.output<(typeof JOBS)[N]['payload']>;
export const JOB_NAMES = Object.keys(JOBS) as JobName[];
export const QUEUE_NAMES = [...new Set(JOB_NAMES.map((n) => JOBS[n].queue))];
