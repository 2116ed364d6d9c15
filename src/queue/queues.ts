import { Queue } from 'bullmq';
import type { AppContext } from '../context.ts';
import { ServiceUnavailableError } from '../errors.ts';
import { tracingHooks } from '../telemetry/state.ts';
import { JOBS, type JobName, type JobPayload } from './catalog.ts';

/** How long an enqueue may wait on Redis before the caller is told it is unavailable. */
const ENQUEUE_TIMEOUT_MS = 5_000;

const queues = new WeakMap<AppContext['redis'], Map<string, Queue>>();

export function queueFor(ctx: AppContext, queueName: string): Queue {
  let byName = queues.get(ctx.redis);
  if (!byName) queues.set(ctx.redis, (byName = new Map()));
  let queue = byName.get(queueName);
  if (!queue) {
    // With tracing on, an enqueue records its trace in the job, which the worker's run continues.
    const telemetry = tracingHooks()?.bullmq;
    queue = new Queue(queueName, { connection: ctx.redis, prefix: ctx.config.redisPrefix, ...(telemetry && { telemetry }) });
    byName.set(queueName, queue);
  }
  return queue;
}

/** The one typed way to enqueue. Job ids derive from the entity, so enqueuing twice is harmless. */
export async function enqueue<N extends JobName>(ctx: AppContext, name: N, payload: JobPayload<N>, options: { jobId: string; delayMs?: number }): Promise<void> {
  const def = JOBS[name];
  const data = def.payload.parse(payload);
  // Redis known to be down: answer at once (BullMQ would wait for it to come back, holding the request).
  if (['reconnecting', 'close', 'end'].includes(ctx.redis.status)) throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
  let timer: NodeJS.Timeout | undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
  });
  try {
    await Promise.race([
      gaveUp,
      queueFor(ctx, def.queue).add(name, data, {
        jobId: options.jobId,
        delay: options.delayMs,
        attempts: def.attempts,
        backoff: { type: 'exponential', delay: def.backoffMs },
        removeOnComplete: { age: 24 * 3600, count: 1000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      }),
    ]);
  } catch (err) {
    ctx.logger.error({ err: (err as Error).message, job: name }, 'enqueue failed');
    throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
  } finally {
    clearTimeout(timer);
  }
}

export async function closeQueues(ctx: AppContext): Promise<void> {
  const byName = queues.get(ctx.redis);
  if (!byName) return;
  await Promise.all([...byName.values()].map((q) => q.close()));
  byName.clear();
}

/**
 * Many jobs of one name in one round trip (BullMQ addBulk), with each job's
 * own id: like `enqueue`, a job id already queued is left as it is.
 */
export async function enqueueMany<N extends JobName>(ctx: AppContext, name: N, jobs: { payload: JobPayload<N>; jobId: string; delayMs?: number }[]): Promise<void> {
  if (jobs.length === 0) return;
  const def = JOBS[name];
  if (['reconnecting', 'close', 'end'].includes(ctx.redis.status)) throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
  await queueFor(ctx, def.queue).addBulk(
    jobs.map((j) => ({
      name,
      data: def.payload.parse(j.payload),
      opts: {
        jobId: j.jobId,
        delay: j.delayMs,
        attempts: def.attempts,
        backoff: { type: 'exponential', delay: def.backoffMs },
        removeOnComplete: { age: 24 * 3600, count: 1000 },
        removeOnFail: { age: 7 * 24 * 3600 },
      },
    })),
  );
}
