/**
 * The one error hierarchy. Domain code throws these; src/http/respond.ts turns
 * them into HTTP in one function. `fields` names each wrong input field.
 */
export type FieldErrors = Record<string, string>;

export class AppError extends Error {
  readonly status: number;
  readonly fields: FieldErrors | null;
  readonly headers: Record<string, string>;
  constructor(
    status: number,
    message: string,
    fields: FieldErrors | null = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
    this.status = status;
    this.fields = fields;
    this.headers = headers;
  }
}

export class BadRequestError extends AppError {
  constructor(message: string, fields: FieldErrors | null = null) {
    super(400, message, fields);
  }
}
export class UnauthorizedError extends AppError {
  constructor(message = 'Sign in or send a valid API key', headers: Record<string, string> = {}) {
    super(401, message, null, headers);
  }
}
export class PaymentRequiredError extends AppError {
  constructor(message: string) {
    super(402, message);
  }
}
export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}
export class SignedInOnlyError extends ForbiddenError {
  constructor() {
    super('This action needs a signed-in person in the app, not an API token');
  }
}
export class NotFoundError extends AppError {
  constructor(message = 'Not found') {
    super(404, message);
  }
}
export class MethodNotAllowedError extends AppError {
  constructor(allow: string[]) {
    super(405, `Method not allowed; use ${allow.join(', ')}`, null, { Allow: allow.join(', ') });
  }
}
export class ConflictError extends AppError {
  constructor(message: string, fields: FieldErrors | null = null) {
    super(409, message, fields);
  }
}
export class PayloadTooLargeError extends AppError {
  constructor(limitBytes: number) {
    super(413, `Request body is larger than ${Math.round(limitBytes / 1024 / 1024)} MB`);
  }
}
export class UnsupportedMediaTypeError extends AppError {
  constructor() {
    super(415, 'Send the body as JSON with Content-Type: application/json');
  }
}
export class ValidationError extends AppError {
  constructor(fields: FieldErrors, message = 'Some fields are not valid') {
    super(422, message, fields);
  }
}
export class RateLimitedError extends AppError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, null, { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}
export class ServiceUnavailableError extends AppError {
  constructor(message: string) {
    super(503, message);
  }
}

/** Postgres SQLSTATE classes that mean the database cannot be reached, is going away, or is too slow right now (57014: statement timeout). */
const UNAVAILABLE_SQLSTATE = /^(08|53|57P0[1-3]|57014)/;
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/**
 * Errors that reach the HTTP layer without being AppErrors but still have a
 * meaning for the client: a unique index that a concurrent request won
 * (409), concurrent writes that deadlocked (409, retry), a row a concurrent
 * request deleted (404), a dependency that is
 * down (503). Recognised by shape, so this module
 * imports no driver.
 */
export function knownError(err: unknown): AppError | null {
  if (err instanceof AppError) return err;
  if (typeof err !== 'object' || err === null) return null;
  const { code, message, name } = err as { code?: unknown; message?: unknown; name?: unknown };
  // Kysely's executeTakeFirstOrThrow: the row was there when checked and gone when written (a concurrent delete).
  // Kysely's NoResultError keeps Error's `name`, so its class is known by its constructor.
  if (name === 'NoResultError' || (err as { constructor?: { name?: unknown } }).constructor?.name === 'NoResultError') {
    return new NotFoundError('Not found: it was removed by another request');
  }
  if (code === '23505') return new ConflictError('That already exists: a concurrent request created it first');
  // Deadlock or serialization failure between concurrent writes to the same rows: nothing was written; the client may retry.
  if (code === '40P01' || code === '40001')
    return new ConflictError('A concurrent change to the same data got in the way; nothing was changed, try again');
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NODE_CODES.has(code))) {
    return new ServiceUnavailableError('A dependency (PostgreSQL or Redis) is unavailable; try again shortly');
  }
  if (
    typeof message === 'string' &&
    /Connection terminated|Connection is closed|not queryable|connect ECONNREFUSED|timeout exceeded when trying to connect|max retries per request/i.test(
      message,
    )
  ) {
    return new ServiceUnavailableError('A dependency (PostgreSQL or Redis) is unavailable; try again shortly');
  }
  return null;
}
