import { DelayedError, type Job, type Worker } from 'bullmq';
import { METRICS } from './metric-catalog.ts';
import type { MetricsRecorder } from './shared-metrics.ts';

/** A job's name as a label: one of the job table's, so a job added by hand under another name adds no series. */
const jobLabel = (names: readonly string[], name: string) => (names.includes(name) ? name : 'unknown');

/** Times each run of a worker's processor by its outcome: completed, failed, or re-delayed to wait (retry_later). */
export function timedProcessor<T>(
  recorder: MetricsRecorder,
  queue: string,
  jobNames: readonly string[],
  processor: (job: Job, token?: string) => Promise<T>,
) {
  return async (job: Job, token?: string): Promise<T> => {
    const started = performance.now();
    const labels = { queue, job_name: jobLabel(jobNames, job.name) };
    try {
      const result = await processor(job, token);
      recorder.observe(METRICS.jobDuration, { ...labels, outcome: 'completed' }, (performance.now() - started) / 1000);
      return result;
    } catch (err) {
      recorder.observe(
        METRICS.jobDuration,
        { ...labels, outcome: err instanceof DelayedError ? 'retry_later' : 'failed' },
        (performance.now() - started) / 1000,
      );
      throw err;
    }
  };
}

/** Counts the jobs a worker finds stalled and those that failed their last attempt. */
export function watchWorker(
  worker: Worker,
  queue: string,
  jobNames: readonly string[],
  recorder: MetricsRecorder,
): void {
  worker.on('stalled', () => recorder.count(METRICS.jobsStalled, { queue }));
  worker.on('failed', (job) => {
    if (job && job.attemptsMade >= (job.opts.attempts ?? 1))
      recorder.count(METRICS.jobsExhausted, { queue, job_name: jobLabel(jobNames, job.name) });
  });
}
