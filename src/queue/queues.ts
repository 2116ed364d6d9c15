import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { ServiceUnavailableError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { tracingHooks } from '../telemetry/tracing-hooks.ts';
import { queueNamesOf, type JobPayloadMap, type JobTableFor } from './job-row.ts';

/** How long an enqueue may wait on Redis before the caller is told it is unavailable. */
const ENQUEUE_TIMEOUT_MS = 5_000;

/**
 * What stands behind an entity's job, as a reconciler needs to know it:
 * `live` (waiting, delayed or running: leave it), `missing` (never queued,
 * or lost with Redis' data), `exhausted` (failed its last attempt),
 * `ended` (completed, or failed without using its attempts, e.g. stalled too
 * often: the entity was not told).
 */
export type JobState = 'live' | 'missing' | 'exhausted' | 'ended';

const KEEP = { removeOnComplete: { age: 24 * 3600, count: 1000 }, removeOnFail: { age: 7 * 24 * 3600 } };

/**
 * A process's BullMQ queues (one `Queue` per queue name, made on first use
 * over the context's Redis connection) and the one typed way to queue a job
 * of the table. Held by the AppContext (`ctx.jobs`), closed with it.
 *
 * Typed by the payload map (a job's name -> its payload), not by the table:
 * the table imports every handler and so the whole domain, which the
 * context (imported by every domain file) must not import. The table is
 * handed in as a loader and loaded on first use, which a CLI command that
 * queues nothing never pays for.
 */
export class JobQueues<P extends JobPayloadMap> {
  readonly #queues = new Map<string, Queue>();
  readonly #redis: Redis;
  readonly #config: Config;
  readonly #logger: Logger;
  readonly #load: () => Promise<JobTableFor<P>>;
  #table: Promise<JobTableFor<P>> | null = null;

  constructor(redis: Redis, config: Config, logger: Logger, load: () => Promise<JobTableFor<P>>) {
    this.#redis = redis;
    this.#config = config;
    this.#logger = logger;
    this.#load = load;
  }

  table(): Promise<JobTableFor<P>> {
    return (this.#table ??= this.#load());
  }

  /** The BullMQ queue of that name, made once. */
  queue(name: string): Queue {
    let queue = this.#queues.get(name);
    if (!queue) {
      // With tracing on, an enqueue records its trace in the job, which the worker's run continues.
      const telemetry = tracingHooks()?.bullmq;
      queue = new Queue(name, {
        connection: this.#redis,
        prefix: this.#config.redisPrefix,
        ...(telemetry && { telemetry }),
      });
      this.#queues.set(name, queue);
    }
    return queue;
  }

  /** Every queue of the table, each once. */
  async queueNames(): Promise<string[]> {
    return queueNamesOf(await this.table());
  }

  #unavailable(): boolean {
    // Redis known to be down: answer at once (BullMQ would wait for it to come back, holding the request).
    return ['reconnecting', 'close', 'end'].includes(this.#redis.status);
  }

  /** Job ids derive from the entity (`scan-42`), so enqueuing twice is harmless. */
  async enqueue<N extends keyof P & string>(
    name: N,
    payload: P[N],
    options: { jobId: string; delayMs?: number },
  ): Promise<void> {
    const row = (await this.table())[name];
    const data: unknown = row.payload.parse(payload);
    if (this.#unavailable())
      throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no answer from Redis within ${ENQUEUE_TIMEOUT_MS} ms`)),
        ENQUEUE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        gaveUp,
        this.queue(row.queue).add(name, data, {
          jobId: options.jobId,
          delay: options.delayMs,
          attempts: row.attempts,
          backoff: { type: 'exponential', delay: row.backoffMs },
          ...KEEP,
        }),
      ]);
    } catch (err) {
      this.#logger.error({ err: (err as Error).message, job: name }, 'enqueue failed');
      throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
    } finally {
      clearTimeout(timer);
    }
  }

  /** Many jobs of one name in one round trip (BullMQ addBulk), each with its own id: like `enqueue`, an id already queued is left as it is. */
  async enqueueMany<N extends keyof P & string>(
    name: N,
    jobs: { payload: P[N]; jobId: string; delayMs?: number }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    const row = (await this.table())[name];
    if (this.#unavailable())
      throw new ServiceUnavailableError('The job queue (Redis) is unavailable; try again shortly');
    await this.queue(row.queue).addBulk(
      jobs.map((j) => ({
        name,
        data: row.payload.parse(j.payload) as unknown,
        opts: {
          jobId: j.jobId,
          delay: j.delayMs,
          attempts: row.attempts,
          backoff: { type: 'exponential', delay: row.backoffMs },
          ...KEEP,
        },
      })),
    );
  }

  /** What stands behind an entity's job (see JobState). */
  async state(name: keyof P & string, jobId: string): Promise<JobState> {
    const job = await this.queue((await this.table())[name].queue).getJob(jobId);
    if (!job) return 'missing';
    const state = await job.getState();
    if (state === 'completed') return 'ended';
    if (state === 'failed') return job.attemptsMade >= (job.opts.attempts ?? 1) ? 'exhausted' : 'ended';
    if (state === 'unknown') return 'missing';
    return 'live';
  }

  /** Removes a job that has ended, so the same job id can be queued again. */
  async remove(name: keyof P & string, jobId: string): Promise<void> {
    const job = await this.queue((await this.table())[name].queue).getJob(jobId);
    await job?.remove();
  }

  async close(): Promise<void> {
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.all(queues.map((q) => q.close()));
  }
}
