import type { IncomingMessage } from 'node:http';
import { AppError, BadRequestError, PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors.ts';

export const BODY_LIMIT_BYTES = 4 * 1024 * 1024;

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return Number(length) > 0;
  return req.headers['transfer-encoding'] !== undefined;
}

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/**
 * How much of a refused body is still read and thrown away before the 413 is
 * sent (nginx's lingering close): a client still writing when the server
 * closes sees a broken pipe instead of the answer. Past these bounds the
 * connection is closed anyway.
 */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 2000;

/**
 * Reads a JSON body as a stream and stops keeping it at the limit, so a huge
 * body is never buffered whole. No body at all reads as undefined.
 */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!isJsonContentType(req.headers['content-type'])) throw new UnsupportedMediaTypeError();
  const text = (await readRawBody(req, limit)).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`Malformed JSON body: ${(err as Error).message}`);
  }
}

/**
 * The whole body as bytes, whatever its type: for a handler that parses it
 * itself, so no request is answered with its body left unread on the
 * connection. Past the limit: 413, the rest read and dropped first.
 */
export async function readRawBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit + LINGER_BYTES) throw markAbandoned(new PayloadTooLargeError(limit));
  const body = await collect(req, limit, declared > limit);
  if (body === null) throw markAbandoned(new PayloadTooLargeError(limit));
  return body;
}

/** The body, or null when it passed the limit (its rest read and dropped within the linger bounds). */
function collect(req: IncomingMessage, limit: number, overFromStart: boolean): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = overFromStart;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: Buffer | null, err?: Error) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) reject(err);
      else resolve(result);
    };
    const startLinger = () => {
      over = true;
      chunks.length = 0;
      timer = setTimeout(() => finish(null), LINGER_MS);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (over) {
        if (size > limit + LINGER_BYTES) finish(null);
        return;
      }
      if (size > limit) startLinger();
      else chunks.push(chunk);
    };
    const onEnd = () => finish(over ? null : Buffer.concat(chunks));
    const onError = (err: Error) => finish(null, err);
    const onClose = () => finish(over ? null : Buffer.concat(chunks));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
    if (overFromStart) startLinger();
  });
}

/** Errors after which the rest of the body was left unread: the connection must close. */
const abandoned = new WeakSet<AppError>();
function markAbandoned(err: AppError): AppError {
  abandoned.add(err);
  return err;
}
export function bodyWasAbandoned(err: unknown): boolean {
  return err instanceof AppError && abandoned.has(err);
}
