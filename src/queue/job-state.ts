import type { AppContext } from '../context.ts';
import { JOBS, type JobName } from './catalog.ts';
import { queueFor } from './queues.ts';

/**
 * What stands behind an entity's job, as the reconciler needs to know it:
 * `live` (waiting, delayed or running: leave it), `missing` (never queued,
 * or lost with Redis' data), `exhausted` (failed its last attempt),
 * `ended` (completed, or failed without using its attempts, e.g. stalled too
 * often: the entity was not told).
 */
export type JobState = 'live' | 'missing' | 'exhausted' | 'ended';

export async function jobState(ctx: AppContext, name: JobName, jobId: string): Promise<JobState> {
  const job = await queueFor(ctx, JOBS[name].queue).getJob(jobId);
  if (!job) return 'missing';
  const state = await job.getState();
  if (state === 'completed') return 'ended';
  if (state === 'failed') return job.attemptsMade >= (job.opts.attempts ?? 1) ? 'exhausted' : 'ended';
  if (state === 'unknown') return 'missing';
  return 'live';
}

/** Removes a job that has ended, so the same job id can be queued again. */
export async function removeJob(ctx: AppContext, name: JobName, jobId: string): Promise<void> {
  const job = await queueFor(ctx, JOBS[name].queue).getJob(jobId);
  await job?.remove();
}
