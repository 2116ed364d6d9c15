import { DelayedError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { closeContext, createContext, type AppContext, type JobTableLoader } from '../context.ts';
import { onShutdown } from '../shutdown.ts';
import { timedProcessor, watchWorker } from '../telemetry/job-metrics.ts';
import { tracingHooks } from '../telemetry/tracing-hooks.ts';
import { queueNamesOf, type JobRow, type JobTable } from './job-row.ts';
import { RetryLaterError } from './retry-later.ts';

/**
 * Scheduler ids this deployment once used, removed at start: each schedule's
 * id is now its job's name, and a scheduler left under an old id would
 * queue its job twice (or under a name no longer in the table).
 */
const RETIRED_SCHEDULERS: Record<string, string> = {
  'nightly-scans': 'schedule',
  'nightly-crawler-checks': 'schedule',
  'nightly-sitemap-imports': 'schedule',
  'nightly-retention': 'schedule',
  'daily-period-changes': 'schedule',
};

export interface Workers {
  close(): Promise<void>;
}

/** Starts BullMQ workers for the given queues (all by default) inside this process. */
export function startWorkers(
  ctx: AppContext,
  table: JobTable,
  options: { queues?: string[]; concurrency?: number } = {},
): Workers {
  const known = queueNamesOf(table);
  const wanted = options.queues ?? known;
  const unknown = wanted.filter((q) => !known.includes(q));
  if (unknown.length) throw new Error(`unknown queues: ${unknown.join(', ')}; known: ${known.join(', ')}`);
  // Blocking worker commands need their own connection that waits out Redis restarts.
  const connection = new Redis(ctx.config.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (err: Error) => ctx.logger.warn({ err: err.message }, 'worker redis error'));

  // Job runs and provider calls are counted here and summed across workers in Redis (src/telemetry/shared-metrics.ts).
  const recorder = ctx.metrics;
  const jobNames = Object.keys(table);
  const telemetry = tracingHooks()?.bullmq;
  const workers = wanted.map((queue) => {
    const worker = new Worker(
      queue,
      timedProcessor(recorder, queue, jobNames, async (job: Job, token?: string) => {
        const name = job.name;
        const row: JobRow | undefined = table[name];
        const log = ctx.logger.child({ jobId: job.id, job: name, attempt: job.attemptsMade + 1 });
        if (!row) throw new Error(`no job named ${job.name}`);
        const payload: unknown = row.payload.parse(job.data);
        try {
          log.info('job started');
          const result = await row.run({ ...ctx, logger: log }, payload);
          log.info('job done');
          return result;
        } catch (err) {
          if (err instanceof RetryLaterError) {
            log.info({ reason: err.message, delayMs: err.delayMs }, 'job re-delayed');
            await job.moveToDelayed(Date.now() + err.delayMs, token);
            throw new DelayedError();
          }
          log.error({ err }, 'job failed');
          throw err;
        }
      }),
      {
        connection,
        // With tracing on, each run continues the trace of the request that queued it.
        ...(telemetry && { telemetry }),
        prefix: ctx.config.redisPrefix,
        // Scans wait on assistants most of the time and share each provider account fairly
        // (domain/scans/fair-share.ts), so a process runs many at once; other jobs are CPU or database bound.
        // Webhook deliveries wait on receivers (10 s at most each, and a slow one holds a few slots: domain/webhooks/in-flight.ts).
        concurrency:
          options.concurrency ??
          (queue === 'scan'
            ? ctx.config.workerScanConcurrency
            : queue === 'webhook'
              ? ctx.config.webhooks.workerConcurrency
              : 4),
        // A job whose worker died is handed to another worker after this long.
        lockDuration: ctx.config.jobLockMs,
        stalledInterval: ctx.config.jobLockMs,
        // Jobs resume where they stopped, so a job whose workers died is run again rather than failed
        // (BullMQ's default fails it at the second stall); the reconciler covers what is left.
        maxStalledCount: 10,
      },
    );
    worker.on('error', (err) => ctx.logger.warn({ err: err.message, queue }, 'worker error'));
    watchWorker(worker, queue, jobNames, recorder);
    worker.on('failed', (job, err) => {
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      const row: JobRow | undefined = table[job.name];
      if (!row?.exhausted) return;
      const payload = row.payload.safeParse(job.data);
      // If this handler is lost too (the process dies now), the reconciler ends the entity instead.
      if (payload.success)
        row
          .exhausted(ctx, payload.data, err)
          .catch((e: unknown) => ctx.logger.error({ err: e, jobId: job.id }, 'exhausted handler failed'));
    });
    return worker;
  });
  const registerSchedules = () => {
    for (const [name, row] of Object.entries(table)) {
      if (!row.schedule || !wanted.includes(row.queue)) continue;
      const repeat =
        'pattern' in row.schedule
          ? { pattern: row.schedule.pattern, tz: 'UTC' }
          : { every: row.schedule.everyMs(ctx.config) };
      ctx.jobs
        .queue(row.queue)
        .upsertJobScheduler(name, repeat, { name, data: {} })
        .catch((err: Error) => ctx.logger.error({ err: err.message, schedule: name }, 'could not register schedule'));
    }
    for (const [id, queue] of Object.entries(RETIRED_SCHEDULERS)) {
      if (!wanted.includes(queue)) continue;
      ctx.jobs
        .queue(queue)
        .removeJobScheduler(id)
        .catch(() => undefined);
    }
  };
  // Again after every reconnect: a Redis that restarted without its data has lost the schedulers too.
  connection.on('ready', registerSchedules);
  registerSchedules();
  ctx.logger.info({ queues: wanted }, 'workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      connection.disconnect();
    },
  };
}

/** The worker process: a worker context, workers for the table's queues, closed on a signal. */
export async function runWorker(config: Config, jobTable: JobTableLoader, queues?: string[]): Promise<void> {
  const ctx = createContext(config, { role: 'worker', jobTable });
  const workers = startWorkers(ctx, await ctx.jobs.table(), { queues });
  onShutdown(async () => {
    await workers.close();
    await closeContext(ctx);
  }, ctx.logger);
}
