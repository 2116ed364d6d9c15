import type { AppContext } from '../src/context.ts';
import type { JobName, JobPayload } from '../src/queue/catalog.ts';

/** Handlers are thin: take the validated payload, call domain code, return its summary. */
export type JobHandler<N extends JobName> = (ctx: AppContext, payload: JobPayload<N>) => Promise<unknown>;
