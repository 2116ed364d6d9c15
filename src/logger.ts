import { pino, type DestinationStream, type Logger } from 'pino';
import { tracingHooks } from './telemetry/tracing-hooks.ts';

export type { Logger };

/**
 * Paths that may carry secrets: keys, provider credentials, auth headers.
 * No wildcards: they make redaction walk every logged object, a measurable
 * share of each request's time (bench/http); code never logs secrets nested deeper.
 */
const redact = ['req.headers.authorization', 'headers.authorization', 'authorization', 'apiKey', 'key', 'token'];

/** A block handed to the file descriptor at once: sonic-boom's own write size (and Docker's log copier buffer). */
const BLOCK_CHARS = 16 * 1024;
/** The longest a line waits for its block. */
const BLOCK_WAIT_MS = 200;

type SonicBoom = ReturnType<typeof pino.destination>;

/** Each service logger's hand-over of the lines it holds: run when the process ends. */
const atEnd = new Set<() => void>();
let endHooked = false;

/**
 * Gathers lines and writes them in blocks of 16 KB, or after 200 ms, or
 * when the process ends: one write per block, on the loop (sonic-boom in
 * sync mode), so nothing is in flight when the process ends and no line is
 * lost or written twice. Line by line, sonic-boom measured its whole pending
 * buffer per line and wrote through the thread pool: the access log cost
 * more than the rest of a request (bench/http). A reader that stops reading
 * for a whole pipe buffer (64 KB) holds the process back, as pino's default
 * destination does.
 */
function inBlocks(dest: SonicBoom): DestinationStream & { flush(cb?: (err?: Error) => void): void } {
  let lines: string[] = [];
  let chars = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = () => {
    clearTimeout(timer);
    timer = undefined;
    if (lines.length === 0) return;
    const block = lines.join('');
    lines = [];
    chars = 0;
    dest.write(block);
  };
  atEnd.add(handOver);
  dest.on('close', () => atEnd.delete(handOver));
  if (!endHooked) {
    endHooked = true;
    const endAll = () => {
      for (const hand of atEnd) hand();
    };
    process.on('beforeExit', endAll);
    process.on('exit', endAll);
  }
  return {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= BLOCK_CHARS) handOver();
      else timer ??= setTimeout(handOver, BLOCK_WAIT_MS).unref();
    },
    flush(cb = () => undefined) {
      handOver();
      dest.flush(cb);
    },
  };
}

/**
 * Logs go to stdout for services, in blocks (inBlocks); the CLI sends them
 * to stderr (fd 2), line by line, so stdout stays one JSON object. Both
 * write synchronously.
 */
export function createLogger(level: string, options: { name?: string; fd?: 1 | 2 } = {}): Logger {
  const destination = pino.destination({ fd: options.fd ?? 1, sync: true });
  // With tracing on, each line names the active span (trace_id, span_id); off, no mixin runs at all.
  const traceFields = tracingHooks()?.logFields;
  const settings = {
    name: options.name ?? 'sightline',
    level,
    redact: { paths: redact, censor: '[redacted]' },
    base: { pid: process.pid },
    ...(traceFields && { mixin: traceFields }),
  };
  const stream = options.fd === 2 ? destination : inBlocks(destination);
  const logger = pino(settings, stream);
  // With a mixin each line has fields of its own: access lines then go through pino.
  if (!traceFields) plainLoggers.set(logger, stream);
  return logger;
}

/** Loggers made here without a mixin, and the stream each writes to: their access lines can be written as text (accessLog). */
const plainLoggers = new WeakMap<Logger, DestinationStream>();

/** What the access log says of a request: one line a request, `msg` "request", these fields in this order (src/http/server.ts). */
export interface AccessFields {
  reqId: string;
  method: string;
  path: string | null;
  route: string;
  status: number;
  ms: number;
  orgId: number | undefined;
  keyId: number | undefined;
}

/** Strings that pino writes between quotes as they are (no escaping): request ids, methods, logged paths and route templates are. */
const PLAIN = /^[\w.:/*~-]*$/;
const quoted = (s: string | null) => (s === null ? 'null' : `"${s}"`);
const field = (name: string, value: number | undefined) => (value === undefined ? '' : `,"${name}":${value}`);

/**
 * Writes access lines. For a logger of createLogger's, the line is put
 * together here, the same text pino writes for the same fields (a test
 * holds the two equal), straight into its block writer: pino's general walk
 * of the logged object was the costliest part of a request that our code
 * does (bench/http). Any other logger, or a field that would need escaping,
 * goes through pino.
 */
export function accessLog(logger: Logger): (fields: AccessFields) => void {
  const stream = plainLoggers.get(logger);
  if (!stream) return (fields) => logger.info(fields, 'request');
  const bindings = () => (logger as unknown as Record<symbol, string>)[pino.symbols.chindingsSym];
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    const { reqId, method, path, route } = fields;
    if (
      !PLAIN.test(reqId) ||
      !PLAIN.test(method) ||
      (path !== null && !PLAIN.test(path)) ||
      !PLAIN.test(route) ||
      !Number.isFinite(fields.ms)
    ) {
      logger.info(fields, 'request');
      return;
    }
    stream.write(
      `{"level":30,"time":${Date.now()}${bindings()},"reqId":"${reqId}","method":"${method}","path":${quoted(path)},"route":"${route}","status":${fields.status},"ms":${fields.ms}${field('orgId', fields.orgId)}${field('keyId', fields.keyId)},"msg":"request"}\n`,
    );
  };
}
