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
 * Reads a JSON body as a stream and stops at the limit, so a huge body is
 * never buffered whole. No body at all reads as undefined.
 */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined;
  if (!isJsonContentType(req.headers['content-type'])) throw new UnsupportedMediaTypeError();
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw markAbandoned(new PayloadTooLargeError(limit));

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw markAbandoned(new PayloadTooLargeError(limit));
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new BadRequestError(`Malformed JSON body: ${(err as Error).message}`);
  }
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
