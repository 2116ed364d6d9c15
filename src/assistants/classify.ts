import { AssistantError, parseRetryAfter } from './assistant-error.ts';

/**
 * Turns whatever an SDK, fetch or parser threw into an AssistantError. The
 * three SDKs throw different classes, so this reads their common shape
 * (`status`, `headers`, class names) instead of importing each hierarchy.
 */

const CONNECTION_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  cause?: unknown;
}

function asErrorLike(value: unknown): ErrorLike | null {
  return value !== null && typeof value === 'object' ? (value as ErrorLike) : null;
}

function findInChain(err: unknown, test: (e: ErrorLike) => boolean): ErrorLike | null {
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    const e = asErrorLike(current);
    if (!e) return null;
    if (test(e)) return e;
    current = e.cause;
  }
  return null;
}

function headerReader(headers: unknown): { get(name: string): string | null } | null {
  if (headers && typeof (headers as { get?: unknown }).get === 'function')
    return headers as { get(name: string): string | null };
  if (headers && typeof headers === 'object') {
    const record = headers as Record<string, unknown>;
    return { get: (name) => (typeof record[name] === 'string' ? (record[name] as string) : null) };
  }
  return null;
}

/** The provider's own error text, shortened: SDK messages repeat the status and can be long. */
function detailOf(e: ErrorLike): string {
  const body = asErrorLike(e.error);
  const inner = asErrorLike(body?.error);
  const message = inner?.message ?? body?.message ?? e.message;
  return typeof message === 'string' ? message.slice(0, 300) : '';
}

export function isAbortError(err: unknown): boolean {
  const e = asErrorLike(err);
  return e?.name === 'AbortError' || e?.name === 'APIUserAbortError' || (e?.name === 'TimeoutError' && e?.code === 23);
}

export function classifyError(err: unknown, provider: string, timedOut = false): AssistantError {
  if (err instanceof AssistantError) return err;
  const nested = findInChain(err, (e) => e instanceof AssistantError);
  if (nested) return nested as unknown as AssistantError;

  if (timedOut)
    return AssistantError.retryable('timeout', 'The assistant did not answer in time', { provider, cause: err });

  const e = asErrorLike(err);
  const name = typeof e?.name === 'string' ? e.name : '';
  if (name === 'APIConnectionTimeoutError' || name === 'TimeoutError') {
    return AssistantError.retryable('timeout', 'The assistant did not answer in time', { provider, cause: err });
  }
  if (e && typeof e.status === 'number' && e.status >= 400) {
    return AssistantError.fromStatus(e.status, detailOf(e), {
      provider,
      retryAfterMs: parseRetryAfter(headerReader(e.headers)),
    });
  }
  const connection = findInChain(err, (x) => typeof x.code === 'string' && CONNECTION_CODES.has(x.code));
  if (
    connection ||
    name === 'APIConnectionError' ||
    (err instanceof TypeError && /fetch failed|terminated|socket/i.test(err.message))
  ) {
    const code = typeof connection?.code === 'string' ? ` (${connection.code})` : '';
    return AssistantError.retryable('connection', `Connection to the assistant failed${code}`, {
      provider,
      cause: err,
    });
  }
  if (err instanceof SyntaxError) {
    return AssistantError.permanent(
      'malformed_response',
      `The assistant sent a body that is not valid JSON: ${err.message.slice(0, 200)}`,
      { provider, cause: err },
    );
  }
  const message = err instanceof Error ? err.message : String(err);
  return AssistantError.permanent(
    'malformed_response',
    `Unexpected failure reading the answer: ${message.slice(0, 300)}`,
    { provider, cause: err },
  );
}
