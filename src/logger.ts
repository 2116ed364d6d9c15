import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry secrets: keys, provider credentials, auth headers.
 * No wildcards: they make redaction walk every logged object, a measurable
 * share of each request's time (bench/http); code never logs secrets nested deeper.
 */
const redact = ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'token'];

/** Logs go to stdout for services; the CLI sends them to stderr (fd 2) so stdout stays one JSON object. */
export function createLogger(level: string, options: { name?: string; fd?: 1 | 2 } = {}): Logger {
  return pino(
    { name: options.name ?? 'sightline', level, redact: { paths: redact, censor: '[redacted]' }, base: { pid: process.pid } },
    pino.destination({ fd: options.fd ?? 1, sync: options.fd === 2 }),
  );
}
