import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/**
 * Whether a request carries `expected` as its bearer token, compared in
 * constant time: both sides are hashed first, so neither the length nor
 * any prefix of the secret shows in how long the comparison takes.
 */
export function carriesBearer(req: IncomingMessage, expected: string): boolean {
  const given = bearer(req);
  if (given === null) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
