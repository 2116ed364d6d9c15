import { Later } from '../../src/domain/common/later.ts';
import { BUSY, type Busy } from '../../src/domain/common/site-lock.ts';

/** A job's use case run to its end in a test: a lock held elsewhere or a wait is a failure of the test. */
export function finished<T>(result: T | Busy | Later): T {
  if (result === BUSY) throw new Error('the site was locked by another job');
  if (result instanceof Later) throw new Error(`the job would wait: ${result.reason}`);
  return result;
}
