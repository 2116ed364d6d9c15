/**
 * Thrown by a job handler that must wait (a site lock held elsewhere, a
 * provider batch not ready): the worker re-delays the job by `delayMs`
 * instead of holding a worker slot, and the attempt does not count as failed.
 */
export class RetryLaterError extends Error {
  readonly delayMs: number;
  constructor(reason: string, delayMs: number) {
    super(reason);
    this.name = 'RetryLaterError';
    this.delayMs = delayMs;
  }
}
