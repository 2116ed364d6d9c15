import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com/, CONTRACT.md
 * "Webhooks"): the secret is `whsec_` + base64 of its key bytes; a signature
 * is `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with those bytes, and
 * `webhook-signature` lists one per valid secret, space-separated (the
 * current one, and the previous one for 24 h after a rotation). Node's own
 * HMAC rather than the `standardwebhooks` package's pure-JS SHA-256: the same
 * bytes (the tests verify every delivery with that package's verifier) at a
 * fraction of the CPU.
 */

const PREFIX = 'whsec_';
/** 32 bytes of key: HMAC-SHA256's block is 64, its output 32; Svix issues 24-32. */
const KEY_BYTES = 32;

export function generateSecret(): string {
  return `${PREFIX}${randomBytes(KEY_BYTES).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** `v1,<base64>` for one secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every secret given. */
export function signedHeaders(secrets: readonly string[], id: string, at: Date, body: string): Record<string, string> {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => sign(s, id, timestamp, body)).join(' '),
  };
}
