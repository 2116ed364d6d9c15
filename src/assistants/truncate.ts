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
 * The provider's JSON as stored: serialised once, where it is written, and
 * replaced by a marker past `maxBytes` (measuring it anywhere else meant
 * serialising every response twice). NULs become U+FFFD (./storable.ts).
 */
export function rawJson(raw: unknown, maxBytes = MAX_RAW_BYTES): string {
  const json = storableJson(JSON.stringify(raw) ?? 'null');
  // UTF-16 length is at most the UTF-8 size and at least a third of it: count bytes only when it could matter.
  if (json.length * 3 <= maxBytes) return json;
  const size = Buffer.byteLength(json, 'utf8');
  return size <= maxBytes
    ? json
    : JSON.stringify({ omitted: true, reason: `raw response of ${size} bytes is over the ${maxBytes}-byte cap` });
}
