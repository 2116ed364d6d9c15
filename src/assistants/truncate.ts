import { isUtf8 } from 'node:buffer';
import { storableJson } from './storable.ts';
import type { Citation } from './types.ts';

/** Answers over this size are cut and flagged: no assistant reply is legitimately longer. */
export const MAX_ANSWER_BYTES = 200 * 1024;
/** Raw provider JSON past this size is not stored whole. */
export const MAX_RAW_BYTES = 2 * 1024 * 1024;

export function capAnswer(
  text: string,
  citations: Citation[],
  maxBytes = MAX_ANSWER_BYTES,
): { text: string; citations: Citation[]; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, citations, truncated: false };
  // Cutting bytes can split a character; drop the replacement character that leaves.
  const cut = Buffer.from(text, 'utf8')
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const kept = citations
    .filter((c) => c.startIndex === undefined || c.startIndex < cut.length)
    .map((c) => (c.endIndex !== undefined && c.endIndex > cut.length ? { ...c, endIndex: cut.length } : c));
  return { text: cut, citations: kept, truncated: true };
}

/**
 * What each parsed response was read from (./http.ts), so that storing it
 * (rawJson, storedRaw) does not serialise it again: its JSON text, and the
 * UTF-8 bytes it came as when they can go to the database as they are
 * (valid UTF-8, no `\u` escape, which storableJson would have to look at).
 * Weak: a response dropped unstored takes them with it. Responses are never
 * changed after parsing; one made up of several (a SERP search and its AI
 * Overview) has neither and is serialised.
 */
const rawSources = new WeakMap<object, { text: string; bytes: Buffer | null }>();

export function keepRawText(value: unknown, text: string, bytes?: Buffer): void {
  if (typeof value !== 'object' || value === null) return;
  let kept: Buffer | null = null;
  if (bytes !== undefined && bytes.indexOf('\\u') === -1 && isUtf8(bytes))
    // A view into a much larger buffer (a socket read) would keep all of it alive while the answer waits to be stored.
    kept = bytes.buffer.byteLength > 2 * bytes.length + 16 * 1024 ? Buffer.from(bytes) : bytes;
  rawSources.set(value, { text, bytes: kept });
}

/**
 * A provider's JSON as it will be stored: the UTF-8 bytes of rawJson's
 * text. The scan turns each reply's parsed response into this as soon as
 * it has read it, so the response's objects die young instead of waiting,
 * with the answer, for their batch to be written (every scavenge in between
 * copied them, and most ended in the old generation); and the bytes as
 * received go into the answers' statement without being decoded and
 * encoded again (answer-store.ts).
 */
export class StoredRaw {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
  /** For logs and anything else that serialises an answer: the JSON itself. */
  toJSON(): unknown {
    return JSON.parse(this.bytes.toString('utf8')) as unknown;
  }
}

const omitted = (size: number, maxBytes: number) =>
  JSON.stringify({ omitted: true, reason: `raw response of ${size} bytes is over the ${maxBytes}-byte cap` });

/** rawJson's text as UTF-8 bytes: the bytes the response came as where they can be stored as they are. */
export function storedRaw(raw: unknown, maxBytes = MAX_RAW_BYTES): StoredRaw {
  if (raw instanceof StoredRaw) return raw;
  const bytes = typeof raw === 'object' && raw !== null ? rawSources.get(raw)?.bytes : undefined;
  if (bytes) return new StoredRaw(bytes.length <= maxBytes ? bytes : Buffer.from(omitted(bytes.length, maxBytes)));
  return new StoredRaw(Buffer.from(rawJson(raw, maxBytes), 'utf8'));
}

/**
 * The provider's JSON as stored: its text as received (when it escapes no
 * character), or serialised once where it is written, and replaced by a marker past `maxBytes` (measuring
 * it anywhere else meant serialising every response twice). NULs become
 * U+FFFD (./storable.ts).
 */
export function rawJson(raw: unknown, maxBytes = MAX_RAW_BYTES): string {
  if (raw instanceof StoredRaw) return raw.bytes.toString('utf8');
  const text = typeof raw === 'object' && raw !== null ? rawSources.get(raw)?.text : undefined;
  // A text with \u escapes is serialised again: JSON.stringify writes the only escapes storableJson looks for.
  const json = text !== undefined && !text.includes('\\u') ? text : storableJson(JSON.stringify(raw) ?? 'null');
  // UTF-16 length is at most the UTF-8 size and at least a third of it: count bytes only when it could matter.
  if (json.length * 3 <= maxBytes) return json;
  const size = Buffer.byteLength(json, 'utf8');
  return size <= maxBytes ? json : omitted(size, maxBytes);
}
