import { DelayedError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { exhaustedHandlers, handlers } from '../../jobs/index.ts';
import type { Config } from '../config.ts';
import { closeContext, createContext, type AppContext } from '../context.ts';
import { onShutdown } from '../shutdown.ts';
import { timedProcessor, watchWorker } from '../telemetry/job-metrics.ts';
import { closeRecorder, recorderFor } from '../telemetry/shared-metrics.ts';
import { tracingHooks } from '../telemetry/state.ts';
import { JOB_NAMES, JOBS, QUEUE_NAMES, SCHEDULES, type JobName } from './catalog.ts';
import { closeQueues, queueFor } from './queues.ts';
import { RetryLaterError } from './retry-later.ts';
import { closeWebhookConnections } from '../web/webhook-post.ts';

/** Startup check: every job in the catalog has exactly one handler and no handler is orphaned. */
export function checkHandlers(): void {
  const names = Object.keys(handlers);
  const missing = JOB_NAMES.filter((n) => !names.includes(n));
  const extra = names.filter((n) => !(JOB_NAMES as string[]).includes(n));
  if (missing.length || extra.length) throw new Error(`job handlers do not match the catalog: missing ${missing.join(', ') || 'none'}, unknown ${extra.join(', ') || 'none'}`);
}

/** The reconcilers' periods are settings (fault tests shorten them); the other schedules keep their wall-clock times. */
function everyOf(ctx: AppContext, job: JobName): number | undefined {
  if (job === 'scan-reconcile') return ctx.config.scans.reconcileMs;
  if (job === 'webhook-reconcile') return ctx.config.webhooks.reconcileMs;
  return undefined;
}

export interface Workers {
  close(): Promise<void>;
}

/** Starts BullMQ workers for the given queues (all by default) inside this process. */
export function startWorkers(ctx: AppContext, options: { queues?: string[]; concurrency?: number } = {}): Workers {
  checkHandlers();
  const wanted = options.queues ?? QUEUE_NAMES;
  const unknown = wanted.filter((q) => !QUEUE_NAMES.includes(q as (typeof QUEUE_NAMES)[number]));
  if (unknown.length) throw new Error(`unknown queues: ${unknown.join(', ')}; known: ${QUEUE_NAMES.join(', ')}`);
  // Blocking worker commands need their own connection that waits out Redis restarts.
  const connection = new Redis(ctx.config.redisUrl, { maxRetriesPerRequest: null });
  connection.on('error', (err: Error) => ctx.logger.warn({ err: err.message }, 'worker redis error'));

  // Job runs and provider calls are counted here and summed across workers in Redis (src/telemetry/shared-metrics.ts).
  const recorder = recorderFor(ctx);
  const telemetry = tracingHooks()?.bullmq;
  const workers = wanted.map((queue) => {
    const worker = new Worker(
      queue,
      timedProcessor(recorder, queue, async (job: Job, token?: string) => {
        const name = job.name as JobName;
        const def = JOBS[name];
        const log = ctx.logger.child({ jobId: job.id, job: name, attempt: job.attemptsMade + 1 });
        if (!def) throw new Error(`no job named ${job.name}`);
        const payload = def.payload.parse(job.data);
        try {
          log.info('job started');
          // The payload was parsed with this job's own schema, so it fits this job's handler;
          // TypeScript cannot correlate the two through the union of job names.
          const handler = handlers[name] as (c: AppContext, p: typeof payload) => Promise<unknown>;
          const result = await handler({ ...ctx, logger: log }, payload);
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
        concurrency: options.concurrency ?? (queue === 'scan' ? ctx.config.workerScanConcurrency : queue === 'webhook' ? ctx.config.webhooks.workerConcurrency : 4),
        // A job whose worker died is handed to another worker after this long.
        lockDuration: ctx.config.jobLockMs,
        stalledInterval: ctx.config.jobLockMs,
        // Jobs resume where they stopped, so a job whose workers died is run again rather than failed
        // (BullMQ's default fails it at the second stall); the reconciler covers what is left.
        maxStalledCount: 10,
      },
    );
    worker.on('error', (err) => ctx.logger.warn({ err: err.message, queue }, 'worker error'));
    watchWorker(worker, queue, recorder);
    worker.on('failed', (job, err) => {
      if (!job || job.attemptsMade < (job.opts.attempts ?? 1)) return;
      const name = job.name as JobName;
      const onExhausted = exhaustedHandlers[name] as ((c: AppContext, p: unknown, e: Error) => Promise<void>) | undefined;
      if (!onExhausted) return;
      const payload = JOBS[name]?.payload.safeParse(job.data);
      // If this handler is lost too (the process dies now), the reconciler ends the entity instead.
      if (payload?.success) onExhausted(ctx, payload.data, err).catch((e: unknown) => ctx.logger.error({ err: e, jobId: job.id }, 'exhausted handler failed'));
    });
    return worker;
  });
  const registerSchedules = () => {
    for (const s of SCHEDULES) {
      const queue = JOBS[s.job].queue;
      if (!wanted.includes(queue)) continue;
      queueFor(ctx, queue)
        .upsertJobScheduler(s.id, everyOf(ctx, s.job) ? { every: everyOf(ctx, s.job) } : { pattern: s.pattern, tz: 'UTC' }, { name: s.job, data: {} })
        .catch((err: Error) => ctx.logger.error({ err: err.message, schedule: s.id }, 'could not register schedule'));
    }
  };
  // Again after every reconnect: a Redis that restarted without its data has lost the schedulers too.
  connection.on('ready', registerSchedules);
  registerSchedules();
  ctx.logger.info({ queues: wanted }, 'workers started');
  return {
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      // Webhook deliveries keep connections to receivers a few seconds (src/web/webhook-post.ts).
      await closeWebhookConnections();
      connection.disconnect();
      await closeRecorder(ctx);
    },
  };
}

export async function runWorker(config: Config, queues?: string[]): Promise<void> {
  const ctx = createContext(config, { role: 'worker' });
  const workers = startWorkers(ctx, { queues });
  onShutdown(async () => {
    await workers.close();
    await closeQueues(ctx);
    await closeContext(ctx);
  }, ctx.logger);
}
