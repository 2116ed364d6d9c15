/**
 * Why an assistant call failed, in the two kinds the scan cares about:
 * `retryable` (try again later: rate limits, server errors, timeouts, broken
 * connections) and `permanent` (asking again gives the same result: bad
 * requests, refusals, empty or unreadable answers). Not an HTTP error of ours:
 * it never reaches a client as a status, only as an answer's `error` text.
 */
export type AssistantErrorKind = 'retryable' | 'permanent';

export type AssistantErrorReason =
  | 'rate_limited'
  | 'server_error'
  | 'timeout'
  | 'connection'
  | 'bad_request'
  | 'auth'
  | 'not_found'
  | 'refusal'
  | 'empty_answer'
  | 'malformed_response'
  | 'too_large'
  | 'batch_item'
  | 'unsupported';

export interface AssistantErrorInit {
  kind: AssistantErrorKind;
  reason: AssistantErrorReason;
  status?: number | null;
  retryAfterMs?: number | null;
  provider?: string | null;
  cause?: unknown;
}

export class AssistantError extends Error {
  readonly kind: AssistantErrorKind;
  readonly reason: AssistantErrorReason;
  /** Upstream HTTP status, when there was one. */
  readonly status: number | null;
  /** What the upstream asked us to wait (Retry-After), uncapped. */
  readonly retryAfterMs: number | null;
  readonly provider: string | null;

  constructor(message: string, init: AssistantErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AssistantError';
    this.kind = init.kind;
    this.reason = init.reason;
    this.status = init.status ?? null;
    this.retryAfterMs = init.retryAfterMs ?? null;
    this.provider = init.provider ?? null;
  }

  get retryable(): boolean {
    return this.kind === 'retryable';
  }

  /** Plain form for logs and job payloads (Error fields are not enumerable). */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      kind: this.kind,
      reason: this.reason,
      status: this.status,
      retryAfterMs: this.retryAfterMs,
      provider: this.provider,
    };
  }

  static permanent(
    reason: AssistantErrorReason,
    message: string,
    extra: Omit<AssistantErrorInit, 'kind' | 'reason'> = {},
  ): AssistantError {
    return new AssistantError(message, { ...extra, kind: 'permanent', reason });
  }

  static retryable(
    reason: AssistantErrorReason,
    message: string,
    extra: Omit<AssistantErrorInit, 'kind' | 'reason'> = {},
  ): AssistantError {
    return new AssistantError(message, { ...extra, kind: 'retryable', reason });
  }

  /** Classifies an HTTP status: 408, 409, 429 and 5xx are worth another try; other 4xx are not. */
  static fromStatus(
    status: number,
    detail: string,
    extra: { retryAfterMs?: number | null; provider?: string | null } = {},
  ): AssistantError {
    const message = `HTTP ${status}${detail ? `: ${detail}` : ''}`;
    if (status === 429) return AssistantError.retryable('rate_limited', message, { ...extra, status });
    if (status === 408) return AssistantError.retryable('timeout', message, { ...extra, status });
    if (status === 409 || status >= 500) return AssistantError.retryable('server_error', message, { ...extra, status });
    if (status === 401 || status === 403) return AssistantError.permanent('auth', message, { ...extra, status });
    if (status === 404) return AssistantError.permanent('not_found', message, { ...extra, status });
    return AssistantError.permanent('bad_request', message, { ...extra, status });
  }
}

/**
 * Retry-After as milliseconds: delta-seconds or an HTTP date; also the
 * `retry-after-ms` header OpenAI and Anthropic send. Null when absent or unreadable.
 */
export function parseRetryAfter(
  headers: { get(name: string): string | null } | null | undefined,
  now: number = Date.now(),
): number | null {
  if (!headers) return null;
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/**
 * Google's APIs send no Retry-After: their 429 carries a `google.rpc.RetryInfo`
 * detail whose `retryDelay` is a JSON Duration ("34s", "1.5s"). Null when absent.
 */
export function retryDelayOf(body: string): number | null {
  try {
    const details = (JSON.parse(body) as { error?: { details?: unknown } } | null)?.error?.details;
    if (!Array.isArray(details)) return null;
    for (const d of details as (Record<string, unknown> | null)[]) {
      const delay = d?.['@type'] === 'type.googleapis.com/google.rpc.RetryInfo' ? d.retryDelay : undefined;
      if (typeof delay === 'string' && /^\d+(\.\d+)?s$/.test(delay))
        return Math.round(Number(delay.slice(0, -1)) * 1000);
    }
  } catch {
    // Not JSON: no delay in it.
  }
  return null;
}
