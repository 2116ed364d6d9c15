import type { JobName } from '../src/queue/catalog.ts';
import { reanalyse } from './reanalyse.ts';
import { rewrite } from './rewrite.ts';
import type { JobHandler } from './types.ts';

/** Exactly one handler per job of the catalog; the mapped type makes a missing one a type error. */
export const handlers: { [N in JobName]: JobHandler<N> } = {
  reanalyse,
  rewrite,
};
