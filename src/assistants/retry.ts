import type { Logger } from '../logger.ts';
import type { AssistantError } from './assistant-error.ts';
import { classifyError, isAbortError } from './classify.ts';

/**
 * The only retry policy for assistant calls (the SDKs' own retries are off):
 * at most `attempts` tries in all, exponential backoff from `baseDelayMs` with
 * up to 25% jitter, and a Retry-After the provider sends honoured up to
 * `maxRetryAfterMs`. Permanent failures are thrown at once.
 */
export interface RetryPolicy {
  attempts: number;
  baseDelayMs: number;
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 3, baseDelayMs: 1000, maxRetryAfterMs: 60_000 };

export function backoffDelay(
  policy: RetryPolicy,
  failedAttempt: number,
  error: AssistantError,
  random: () => number = Math.random,
): number {
  const exponential = policy.baseDelayMs * 2 ** (failedAttempt - 1);
  const jittered = exponential * (1 + 0.25 * random());
  if (error.retryAfterMs !== null) return Math.min(Math.max(error.retryAfterMs, 0), policy.maxRetryAfterMs);
  return Math.round(jittered);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds, fails permanently or runs out of tries.
 * A caller's abort is rethrown as is (cancellation is not a failure).
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<T>,
  ctx: { policy: RetryPolicy; provider: string; signal?: AbortSignal; logger: Logger; random?: () => number },
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (err) {
      if (ctx.signal?.aborted && isAbortError(err)) throw err;
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      const error = classifyError(err, ctx.provider);
      if (error.kind === 'permanent' || n >= ctx.policy.attempts) {
        ctx.logger.debug({ attempt: n, error: error.toJSON() }, 'assistant call failed');
        throw error;
      }
      const delay = backoffDelay(ctx.policy, n, error, ctx.random);
      ctx.logger.warn(
        { attempt: n, delayMs: delay, reason: error.reason, status: error.status },
        'assistant call failed, retrying',
      );
      await sleep(delay, ctx.signal);
    }
  }
}
