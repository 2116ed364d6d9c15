import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { knownError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { Reply } from './route.ts';

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Every response names its request id (`X-Request-Id`, as in the access
 * log). It is written with the other headers in one writeHead: a header set
 * beforehand sends Node's writeHead down a slower path (bench/http).
 */
export function sendJson(
  res: ServerResponse,
  requestId: string,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): void {
  const payload = JSON.stringify(body);
  const length = Buffer.byteLength(payload);
  // Without a route's own headers, no object is spread.
  res.writeHead(
    status,
    headers
      ? { 'X-Request-Id': requestId, ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': length }
      : ['X-Request-Id', requestId, 'Content-Type', JSON_TYPE, 'Content-Length', String(length)],
  );
  res.end(payload);
}

/** The one place where errors become HTTP: AppErrors (and errors known by shape) keep their status, anything else is a logged 500. */
export function sendError(res: ServerResponse, requestId: string, err: unknown, log: Logger): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const known = knownError(err);
  if (known) {
    if (known !== err) log.warn({ err }, 'request failed on a dependency or a concurrent write');
    sendJson(res, requestId, known.status, { error: known.message, fields: known.fields }, known.headers);
    return;
  }
  log.error({ err }, 'unhandled error');
  sendJson(res, requestId, 500, { error: 'Something went wrong on our side; it has been logged', fields: null });
}

/** Writes a route's reply; a promise only when it streams. */
export function sendReply(res: ServerResponse, requestId: string, reply: Reply): Promise<void> | undefined {
  const status = reply.status ?? 200;
  if ('raw' in reply) {
    res.writeHead(status, { 'X-Request-Id': requestId, ...reply.headers, 'Content-Type': reply.contentType });
    if (reply.raw instanceof Readable) return pipeline(reply.raw, res);
    res.end(reply.raw);
    return;
  }
  if (status === 204 || !('body' in reply)) {
    res.writeHead(204, { 'X-Request-Id': requestId, ...reply.headers });
    res.end();
    return;
  }
  sendJson(res, requestId, status, reply.body, reply.headers);
}
