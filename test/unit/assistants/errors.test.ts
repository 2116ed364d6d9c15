import { describe, expect, it } from 'vitest';
import { AssistantError, parseRetryAfter } from '../../../src/assistants/assistant-error.ts';
import { classifyError } from '../../../src/assistants/classify.ts';
import { errorDetail, parseJsonBody } from '../../../src/assistants/http.ts';
import { backoffDelay, DEFAULT_RETRY, withRetry } from '../../../src/assistants/retry.ts';
import { createLogger } from '../../../src/logger.ts';

const logger = createLogger('silent');

describe('AssistantError.fromStatus', () => {
  it.each([
    [429, 'retryable', 'rate_limited'],
    [408, 'retryable', 'timeout'],
    [500, 'retryable', 'server_error'],
    [503, 'retryable', 'server_error'],
    [529, 'retryable', 'server_error'],
    [400, 'permanent', 'bad_request'],
    [401, 'permanent', 'auth'],
    [403, 'permanent', 'auth'],
    [404, 'permanent', 'not_found'],
    [422, 'permanent', 'bad_request'],
  ])('%i is %s (%s)', (status, kind, reason) => {
    expect(AssistantError.fromStatus(status, 'x')).toMatchObject({ kind, reason, status });
  });

  it('serialises its classification for logs and job payloads', () => {
    const err = AssistantError.fromStatus(429, 'slow down', { retryAfterMs: 2000, provider: 'openai' });
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({
      kind: 'retryable',
      reason: 'rate_limited',
      status: 429,
      retryAfterMs: 2000,
      provider: 'openai',
    });
  });
});

describe('parseRetryAfter', () => {
  const h = (values: Record<string, string>) => new Headers(values);
  it('reads seconds, HTTP dates and retry-after-ms', () => {
    expect(parseRetryAfter(h({ 'retry-after': '3' }))).toBe(3000);
    expect(parseRetryAfter(h({ 'retry-after-ms': '250', 'retry-after': '3' }))).toBe(250);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter(h({ 'retry-after': 'Wed, 01 Jan 2025 00:00:05 GMT' }), now)).toBe(5000);
    expect(parseRetryAfter(h({ 'retry-after': 'soon' }))).toBeNull();
    expect(parseRetryAfter(h({}))).toBeNull();
  });
});

describe('classifyError', () => {
  it('reads status and Retry-After from SDK errors', () => {
    const sdkError = Object.assign(new Error('429 Rate limit'), {
      name: 'RateLimitError',
      status: 429,
      headers: new Headers({ 'retry-after': '7' }),
      error: { error: { message: 'Rate limit reached' } },
    });
    expect(classifyError(sdkError, 'openai')).toMatchObject({
      kind: 'retryable',
      reason: 'rate_limited',
      retryAfterMs: 7000,
      message: 'HTTP 429: Rate limit reached',
    });
    const badRequest = Object.assign(new Error('400'), { status: 400, headers: new Headers() });
    expect(classifyError(badRequest, 'anthropic')).toMatchObject({ kind: 'permanent', reason: 'bad_request' });
  });

  it('treats connection failures and timeouts as retryable', () => {
    const reset = new TypeError('fetch failed', {
      cause: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    });
    expect(classifyError(reset, 'perplexity')).toMatchObject({ kind: 'retryable', reason: 'connection' });
    expect(
      classifyError(Object.assign(new Error('Connection error.'), { name: 'APIConnectionError' }), 'openai'),
    ).toMatchObject({ kind: 'retryable', reason: 'connection' });
    expect(
      classifyError(Object.assign(new Error('Request timed out.'), { name: 'APIConnectionTimeoutError' }), 'openai'),
    ).toMatchObject({ kind: 'retryable', reason: 'timeout' });
    expect(classifyError(new Error('aborted'), 'gemini', true)).toMatchObject({ kind: 'retryable', reason: 'timeout' });
  });

  it('treats broken JSON and unknown failures as permanent', () => {
    expect(classifyError(new SyntaxError('Unexpected token <'), 'gemini')).toMatchObject({
      kind: 'permanent',
      reason: 'malformed_response',
    });
    expect(classifyError(new Error('boom'), 'gemini')).toMatchObject({ kind: 'permanent' });
  });

  it('finds an AssistantError wrapped by an SDK', () => {
    const inner = AssistantError.fromStatus(503, 'down');
    expect(classifyError(new Error('Connection error.', { cause: inner }), 'openai')).toBe(inner);
  });
});

describe('response bodies', () => {
  it('rejects HTML pages and broken JSON as permanent malformed responses', () => {
    expect(() =>
      parseJsonBody('<!DOCTYPE html><html><body>502 Bad Gateway</body></html>', 'text/html', 'serp'),
    ).toThrow(AssistantError);
    expect(() => parseJsonBody('{"a":', 'application/json', 'serp')).toThrow(/not valid JSON/);
    expect(parseJsonBody('{"a":1}', 'application/json', 'serp')).toEqual({ a: 1 });
  });

  it('finds the provider message in error bodies', () => {
    expect(errorDetail('{"error":{"message":"Invalid key"}}')).toBe('Invalid key');
    expect(errorDetail('{"error":"Invalid API key"}')).toBe('Invalid API key');
    expect(errorDetail('<html><body><h1>502 Bad Gateway</h1></body></html>')).toBe('502 Bad Gateway');
  });
});

describe('retry policy', () => {
  it('backs off exponentially from the base delay with up to 25% jitter', () => {
    const err = AssistantError.fromStatus(500, '');
    expect(backoffDelay(DEFAULT_RETRY, 1, err, () => 0)).toBe(1000);
    expect(backoffDelay(DEFAULT_RETRY, 2, err, () => 0)).toBe(2000);
    expect(backoffDelay(DEFAULT_RETRY, 2, err, () => 1)).toBe(2500);
  });

  it('honours Retry-After, capped at 60 s', () => {
    expect(backoffDelay(DEFAULT_RETRY, 1, AssistantError.fromStatus(429, '', { retryAfterMs: 5000 }))).toBe(5000);
    expect(backoffDelay(DEFAULT_RETRY, 1, AssistantError.fromStatus(429, '', { retryAfterMs: 3_600_000 }))).toBe(
      60_000,
    );
  });

  it('tries at most 3 times in all, and never retries a permanent failure', async () => {
    const policy = { ...DEFAULT_RETRY, baseDelayMs: 1 };
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw AssistantError.fromStatus(500, 'down');
        },
        { policy, provider: 'openai', logger },
      ),
    ).rejects.toMatchObject({ reason: 'server_error' });
    expect(calls).toBe(3);

    calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw AssistantError.fromStatus(400, 'bad');
        },
        { policy, provider: 'openai', logger },
      ),
    ).rejects.toMatchObject({ reason: 'bad_request' });
    expect(calls).toBe(1);
  });

  it('rethrows a caller abort instead of retrying it', async () => {
    const controller = new AbortController();
    const promise = withRetry(
      async () => {
        controller.abort(new DOMException('cancelled', 'AbortError'));
        throw AssistantError.fromStatus(500, 'down');
      },
      { policy: { ...DEFAULT_RETRY, baseDelayMs: 1 }, provider: 'openai', logger, signal: controller.signal },
    );
    await expect(promise).rejects.toMatchObject({ name: 'AbortError' });
  });
});
