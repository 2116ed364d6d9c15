/**
 * One request of an access log, whatever format it came in: what the
 * traffic import needs and nothing else (no size, no timing, no country).
 * Parsers answer a record, `null` for an entry that parsed but is not an
 * HTTP request (a Vercel build log, a request line of "-"), or a string
 * saying why the line is not one.
 */
export interface LogRecord {
  /** Milliseconds since the epoch, UTC. */
  time: number;
  method: string;
  /** The request target as sent: path and query, or an absolute URL. */
  target: string;
  status: number;
  /** The client address as logged; null when the log has none. */
  ip: string | null;
  userAgent: string;
  /** null for none ("-" in combined logs). */
  referer: string | null;
}

export type Parsed = LogRecord | null | string;

/** The formats a log may be sent in; `auto` decides per line (a JSON object or array, else combined). */
export const LOG_FORMATS = ['auto', 'combined', 'json'] as const;
export type LogFormatChoice = (typeof LOG_FORMATS)[number];
export type LogFormat = Exclude<LogFormatChoice, 'auto'>;

/** A status code as logged: an integer from 100 to 599, else NaN. */
export function statusOf(value: unknown): number {
  const n =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : NaN;
}
