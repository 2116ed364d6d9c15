import { classifyError } from './classify.ts';

/**
 * One bounded try: the caller's signal plus a per-call timeout. The race
 * makes the timeout hold even if an SDK ignores the signal somewhere.
 * A timeout becomes a retryable AssistantError; a caller's abort is rethrown.
 * One controller and one timer per try: AbortSignal.timeout and
 * AbortSignal.any, which did the same, cost more CPU than the rest of this.
 */
export async function runAttempt<T>(
  fn: (signal: AbortSignal) => Promise<T>,
  opts: { timeoutMs: number; signal?: AbortSignal; provider: string },
): Promise<T> {
  const controller = new AbortController();
  let timedOut = false;
  let rejectAborted: (reason: unknown) => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => (rejectAborted = reject));
  // Whichever promise loses the race must not surface as an unhandled rejection.
  aborted.catch(() => undefined);
  const abort = (reason: unknown) => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    rejectAborted(reason);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, opts.timeoutMs);
  // Like AbortSignal.timeout's: a try in flight does not by itself keep the process alive.
  timer.unref();
  const caller = opts.signal;
  const onCallerAbort = () => abort(caller?.reason);
  if (caller?.aborted) onCallerAbort();
  else caller?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    const work = fn(controller.signal);
    work.catch(() => undefined);
    return await Promise.race([work, aborted]);
  } catch (err) {
    if (caller?.aborted) throw caller.reason;
    throw classifyError(err, opts.provider, timedOut);
  } finally {
    clearTimeout(timer);
    caller?.removeEventListener('abort', onCallerAbort);
  }
}
