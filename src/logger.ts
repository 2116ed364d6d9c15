import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths that may carry secrets: keys, provider credentials, auth headers. */
const redact = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'token',
  '*.token',
];

export function createLogger(level: string, name = 'sightline'): Logger {
  return pino({ name, level, redact: { paths: redact, censor: '[redacted]' }, base: { pid: process.pid } });
}
