import { AssistantError, parseRetryAfter, retryDelayOf } from './assistant-error.ts';
import { bufferedFetch, send } from './buffered-fetch.ts';
import { keepRawText } from './truncate.ts';

/**
 * Plain-fetch plumbing shared by the adapters without an SDK (Perplexity, the
 * SERP API, the app gateway), and the fetch the SDK clients are given so a
 * runaway body cannot exhaust memory.
 */

/** Sanity bound on one upstream body; answers themselves are capped far lower. */
export const MAX_BODY_BYTES = 64 * 1024 * 1024;

function tooLarge(provider: string): AssistantError {
  return AssistantError.permanent(
    'too_large',
    `The assistant's response is larger than ${MAX_BODY_BYTES / 1024 / 1024} MB`,
    { provider },
  );
}

/**
 * A fetch whose response bodies error out past `maxBytes`: node:http with the
 * body read whole (./buffered-fetch.ts), global fetch for what that does not
 * take (form uploads of batch files, redirects).
 */
export function cappedFetch(provider: string, maxBytes = MAX_BODY_BYTES): typeof fetch {
  return bufferedFetch(maxBytes, () => tooLarge(provider), streamingCappedFetch(provider, maxBytes));
}

/** Global fetch with the same cap, counted as the body streams. */
function streamingCappedFetch(provider: string, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const length = response.headers.get('content-length');
    const declared = Number(length ?? 0);
    if (declared > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(provider);
    }
    // A declared length binds an uncompressed body (fetch fails one that runs past it), so only
    // bodies of unknown or compressed length are counted: a counting stream on every response was
    // a tenth of a scan's CPU.
    const encoding = response.headers.get('content-encoding');
    const bound = length !== null && Number.isInteger(declared) && (encoding === null || encoding === 'identity');
    if (!response.body || bound) return response;
    let seen = 0;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) controller.error(tooLarge(provider));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** JSON never starts with "<"; HTML error pages and XML do. */
export function looksLikeHtml(text: string): boolean {
  return /^\s*</.test(text);
}

/** The provider's error message from an error body: JSON `error.message`, `error`, `message`, or the text itself. */
export function errorDetail(text: string): string {
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object') {
      const record = json as Record<string, unknown>;
      const err = record.error;
      if (typeof err === 'string') return err.slice(0, 300);
      if (err && typeof err === 'object' && typeof (err as Record<string, unknown>).message === 'string') {
        return ((err as Record<string, unknown>).message as string).slice(0, 300);
      }
      if (typeof record.message === 'string') return record.message.slice(0, 300);
    }
  } catch {
    // Not JSON: fall through to the text, stripped of markup.
  }
  return text
    .replace(/<[^>]*>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/** Throws a classified error for a non-2xx response, reading its body for the provider's reason. */
export async function throwForStatus(response: Response, provider: string): Promise<never> {
  const text = await response.text().catch(() => '');
  throw statusError(response.status, text, response.headers, provider);
}

function statusError(
  status: number,
  text: string,
  headers: { get(name: string): string | null },
  provider: string,
): AssistantError {
  return AssistantError.fromStatus(status, errorDetail(text), {
    provider,
    retryAfterMs: parseRetryAfter(headers) ?? (status === 429 ? retryDelayOf(text) : null),
  });
}

/**
 * Parses a 2xx body as JSON; HTML pages (proxies, captive portals) and broken JSON are permanent failures.
 * `bytes`: what `text` was decoded from, kept to store the response as received (truncate.ts).
 */
export function parseJsonBody(text: string, contentType: string | null, provider: string, bytes?: Buffer): unknown {
  if ((contentType ?? '').includes('text/html') || looksLikeHtml(text)) {
    throw AssistantError.permanent('malformed_response', 'The assistant answered with an HTML page instead of JSON', {
      provider,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw AssistantError.permanent('malformed_response', 'The assistant answered with a body that is not valid JSON', {
      provider,
      cause: err,
    });
  }
  keepRawText(value, text, bytes);
  return value;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  signal: AbortSignal;
}

/**
 * One JSON call: node:http directly (./buffered-fetch.ts `send`), with no
 * Response object or web stream between the socket and JSON.parse; a
 * redirect goes through fetch.
 */
export async function requestJson(req: JsonRequest, provider: string): Promise<unknown> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
  };
  for (const name in req.headers) headers[name.toLowerCase()] = req.headers[name] as string;
  const body = req.body === undefined ? undefined : JSON.stringify(req.body);
  const res = await send(req.url, {
    method: req.method,
    headers: { ...headers },
    body,
    signal: req.signal,
    maxBytes: MAX_BODY_BYTES,
    tooLarge: () => tooLarge(provider),
  });
  if (res === 'redirect') {
    const response = await cappedFetch(provider)(req.url, { method: req.method, headers, body, signal: req.signal });
    if (!response.ok) return throwForStatus(response, provider);
    return parseJsonBody(await response.text(), response.headers.get('content-type'), provider);
  }
  if (res.status < 200 || res.status > 299)
    throw statusError(res.status, res.body.toString('utf8'), res.headers, provider);
  return parseJsonBody(res.body.toString('utf8'), res.headers.get('content-type'), provider, res.body);
}

/** Gemini's SDK drops response headers from its errors, so its fetch raises our error (with Retry-After) itself. */
export function statusCheckingFetch(provider: string): typeof fetch {
  const inner = cappedFetch(provider);
  return async (input, init) => {
    const response = await inner(input, init);
    if (!response.ok) return throwForStatus(response, provider);
    return response;
  };
}
