import { statusOf, type Parsed } from './record.ts';

/**
 * JSON access logs, one object a line (a line holding an array of objects,
 * as a Vercel drain batch is, is read as each of them). The object's fields
 * say whose it is:
 *
 * - Cloudflare Logpush, HTTP requests dataset: `EdgeStartTimestamp`
 *   (RFC 3339, or Unix seconds or nanoseconds, per the job's
 *   timestamp_format), `ClientRequestMethod`, `ClientRequestURI` (else
 *   `ClientRequestPath`), `EdgeResponseStatus` (else
 *   `OriginResponseStatus`), `ClientIP`, `ClientRequestUserAgent`,
 *   `ClientRequestReferer`;
 * - Vercel log drains: the request is the `proxy` object (`timestamp` in
 *   milliseconds, `method`, `path`, `statusCode`, `clientIp`, `userAgent`,
 *   an array of strings, `referer`); an entry without `proxy` (a build or
 *   function log) is not a request;
 * - Google Cloud Run (Cloud Logging): `timestamp` and the `httpRequest`
 *   object (`requestMethod`, `requestUrl`, `status`, `remoteIp`,
 *   `userAgent`, `referer`);
 * - plain: `{time, method, path, status, userAgent, ip, referer}`, `time` in
 *   ISO 8601 or epoch milliseconds.
 */

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** A timestamp in any unit a log uses: epoch seconds, milliseconds, microseconds or nanoseconds (by size), or a date string. */
export function timeOf(value: unknown): number {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d{9,19}(\.\d+)?$/.test(value)) n = Number(value);
  else if (typeof value === 'string' && value.length <= 64) return Date.parse(value);
  else return NaN;
  if (!Number.isFinite(n) || n <= 0) return NaN;
  if (n >= 1e17) return Math.floor(n / 1e6);
  if (n >= 1e14) return Math.floor(n / 1e3);
  if (n >= 1e11) return Math.floor(n);
  return Math.floor(n * 1000);
}

/** The path and query of an absolute URL (`https://host/a?b` gives `/a?b`); other text as it is. */
function targetOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme < 0 || scheme > 10) return url;
  const slash = url.indexOf('/', scheme + 3);
  return slash < 0 ? '/' : url.slice(slash);
}

function request(
  time: unknown,
  method: unknown,
  target: unknown,
  status: unknown,
  ip: unknown,
  userAgent: unknown,
  referer: unknown,
  source: string,
): Parsed {
  const t = timeOf(time);
  if (Number.isNaN(t)) return `${source}: no readable time`;
  const path = str(target);
  if (!path) return `${source}: no request path`;
  const code = statusOf(status);
  if (Number.isNaN(code)) return `${source}: no HTTP status`;
  const ua = Array.isArray(userAgent)
    ? userAgent.filter((x) => typeof x === 'string').join(' ')
    : (str(userAgent) ?? '');
  const ref = str(referer);
  return {
    time: t,
    method: str(method) ?? 'GET',
    target: targetOf(path),
    status: code,
    ip: str(ip) || null,
    userAgent: ua,
    referer: ref && ref !== '-' ? ref : null,
  };
}

/** One JSON object as a request (or null, or why not). */
export function recordFromJson(o: unknown): Parsed {
  if (!isObject(o)) return 'a JSON value that is not an object';
  if ('ClientRequestUserAgent' in o || 'EdgeStartTimestamp' in o || 'ClientRequestURI' in o) {
    return request(
      o.EdgeStartTimestamp ?? o.EdgeEndTimestamp,
      o.ClientRequestMethod,
      o.ClientRequestURI ?? o.ClientRequestPath,
      o.EdgeResponseStatus ?? o.OriginResponseStatus,
      o.ClientIP,
      o.ClientRequestUserAgent,
      o.ClientRequestReferer,
      'Cloudflare entry',
    );
  }
  if ('proxy' in o || ('deploymentId' in o && 'source' in o)) {
    const p = o.proxy;
    if (!isObject(p)) return null;
    // -1: no response (a crashed function) or a revalidation in the background; not a request anyone was served.
    if (p.statusCode === -1) return null;
    return request(
      p.timestamp ?? o.timestamp,
      p.method,
      p.path ?? o.path,
      p.statusCode ?? o.statusCode,
      p.clientIp,
      p.userAgent,
      p.referer,
      'Vercel entry',
    );
  }
  if (isObject(o.httpRequest)) {
    const h = o.httpRequest;
    return request(
      o.timestamp ?? o.receiveTimestamp,
      h.requestMethod,
      h.requestUrl,
      h.status,
      h.remoteIp,
      h.userAgent,
      h.referer,
      'Cloud Logging entry',
    );
  }
  if ('time' in o || 'path' in o || 'userAgent' in o)
    return request(o.time, o.method, o.path, o.status, o.ip, o.userAgent, o.referer ?? o.referrer, 'JSON entry');
  return 'a JSON object without request fields (time, path, status)';
}

/** A line of a JSON log: each request it holds goes to `emit`; a line that is not JSON is one refusal. */
export function parseJsonLine(line: string, emit: (parsed: Parsed) => void): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    emit('not a JSON value');
    return;
  }
  if (Array.isArray(value)) for (const item of value) emit(recordFromJson(item));
  else emit(recordFromJson(value));
}
