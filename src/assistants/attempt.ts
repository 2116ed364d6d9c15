import { classifyError } from './classify.ts';

/**
 * One bounded try: the caller's signal plus a per-call timeout. The race
 * makes the timeout hold even if an SDK ignores the signal somewhere.
 * A timeout becomes a retryable AssistantError; a caller's abort is rethrown.
 */
export async function runAttempt<T>(fn: (signal: AbortSignal) => Promise<T>, opts: { timeoutMs: number; signal?: AbortSignal; provider: string }): Promise<T> {
  const timeout = AbortSignal.timeout(opts.timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  // Whichever promise loses the race must not surface as an unhandled rejection.
  aborted.catch(() => undefined);
  const work = fn(signal);
  work.catch(() => undefined);
  try {
    return await Promise.race([work, aborted]);
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw classifyError(err, opts.provider, timeout.aborted);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
