import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { knownError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Reply } from './route.ts';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

/** The one place where errors become HTTP: AppErrors (and errors known by shape) keep their status, anything else is a logged 500. */
export function sendError(res: ServerResponse, err: unknown, log: Logger): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known = knownError(err);
  if (known) {
    if (known !== err) log.warn({ err }, 'request failed on a dependency or a concurrent write');
    sendJson(res, known.status, { error: known.message, fields: known.fields }, known.headers);
    return;
  }
  log.error({ err }, 'unhandled error');
  sendJson(res, 500, { error: 'Something went wrong on our side; it has been logged', fields: null });
}

export async function sendReply(res: ServerResponse, reply: Reply): Promise<void> {
  const status = reply.status ?? 200;
  if ('raw' in reply) {
    res.writeHead(status, { ...reply.headers, 'Content-Type': reply.contentType });
    if (reply.raw instanceof Readable) await pipeline(reply.raw, res);
    else res.end(reply.raw);
    return;
  }
  if (status === 204 || !('body' in reply)) {
    res.writeHead(204, reply.headers);
    res.end();
    return;
  }
  sendJson(res, status, reply.body, reply.headers);
}
