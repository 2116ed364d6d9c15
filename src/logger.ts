import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry secrets: keys, provider credentials, auth headers.
 * No wildcards: they make redaction walk every logged object, a measurable
 * share of each request's time (bench/http); code never logs secrets nested deeper.
 */
const redact = ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'token'];

/**
 * Logs go to stdout for services; the CLI sends them to stderr (fd 2) so
 * stdout stays one JSON object. Services write in blocks of 4 KB (flushed on
 * exit and every second): one write per request line was a third of the
 * API's CPU under load (bench/http).
 */
export function createLogger(level: string, options: { name?: string; fd?: 1 | 2 } = {}): Logger {
  const sync = options.fd === 2;
  const destination = pino.destination({ fd: options.fd ?? 1, sync, ...(!sync && { minLength: 4096 }) });
  if (!sync) {
    // A destination closed at shutdown answers the flush with an error: its lines were written by the close.
    setInterval(() => destination.flush(() => undefined), 1000).unref();
  }
  return pino({ name: options.name ?? 'sightline', level, redact: { paths: redact, censor: '[redacted]' }, base: { pid: process.pid } }, destination);
}
