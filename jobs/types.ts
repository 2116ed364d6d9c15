import type { AppContext } from '../src/context.ts';
import type { JobName, JobPayload } from '../src/queue/catalog.ts';

/** Handlers are thin: take the validated payload, call domain code, return its summary. */
export type JobHandler<N extends JobName> = (ctx: AppContext, payload: JobPayload<N>) => Promise<unknown>;

/** Runs once a job has failed its last attempt, to leave its entity in a final state. */
export type ExhaustedHandler<N extends JobName> = (ctx: AppContext, payload: JobPayload<N>, error: Error) => Promise<void>;
