import type { z } from 'zod';
import type { Config } from '../config.ts';
import type { AppContext } from '../context.ts';

/**
 * One row of the job table (jobs/index.ts): everything BullMQ wiring needs
 * to queue, run, retry and schedule a job kind. The table itself lives in
 * jobs/, beside the handlers; src/queue only knows this shape.
 */
export interface JobRow<S extends z.ZodType = z.ZodType> {
  /** The BullMQ queue it waits in (several kinds may share one: the ticks share `schedule`). */
  queue: string;
  /** Ids, never secrets; validated when queued and again when picked up. */
  payload: S;
  /** Runs in all, the first included; retried with exponential backoff from `backoffMs`. */
  attempts: number;
  backoffMs: number;
  /** A repeating job, registered by every worker serving its queue under the job's own name: a cron pattern (UTC), or a period from the configuration. */
  schedule?: { pattern: string } | { everyMs: (config: Config) => number };
  /** The handler: parse nothing, call the domain, return its summary. Method syntax: rows of different payloads share one table type. */
  run(ctx: AppContext, payload: z.output<S>): Promise<unknown>;
  /** What happens once the last attempt failed: leave the job's entity in a final state. */
  exhausted?(ctx: AppContext, payload: z.output<S>, error: Error): Promise<void>;
}

/** A whole table: job name -> row. */
export type JobTable = Record<string, JobRow>;

/** A job's name -> its payload: what a table's rows validate, and what producers queue. */
export type JobPayloadMap = Record<string, unknown>;

/** A table with one row per name of a payload map, each row's schema giving that name's payload. */
export type JobTableFor<P extends JobPayloadMap> = { [N in keyof P]: JobRow<z.ZodType<P[N]>> };

/** The queues of a table, each once, in the table's order. */
export function queueNamesOf(table: JobTable): string[] {
  return [...new Set(Object.values(table).map((row) => row.queue))];
}
