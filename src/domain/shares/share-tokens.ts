import { createHash, randomBytes } from 'node:crypto';

/**
 * A share token is the secret in a share link's URL: 32 random bytes in
 * base64url (43 characters). Only its SHA-256 is stored, like an API key's,
 * so the database cannot give a link back; the URL is shown once, at creation.
 */

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Characters of a token kept for display, so people can tell their links apart. */
export const SHARE_PREFIX_LENGTH = 6;

export function generateShareToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Anything else (too long, odd bytes) opens nothing, without a database read. */
export function isWellFormedShareToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

export function hashShareToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
