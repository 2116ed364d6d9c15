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
 * The JSON text each parsed response was read from (./http.ts), so that
 * storing it (rawJson) does not serialise it again: the same JSON value, a
 * few microseconds an answer less. Weak: a response dropped unstored takes
 * its text with it. Responses are never changed after parsing; one made up
 * of several (a SERP search and its AI Overview) has no text and is
 * serialised.
 */
const rawTexts = new WeakMap<object, string>();

export function keepRawText(value: unknown, text: string): void {
  if (typeof value === 'object' && value !== null) rawTexts.set(value, text);
}

/**
 * The provider's JSON as stored: its text as received (when it escapes no
 * character), or serialised once where it is written, and replaced by a marker past `maxBytes` (measuring
 * it anywhere else meant serialising every response twice). NULs become
 * U+FFFD (./storable.ts).
 */
export function rawJson(raw: unknown, maxBytes = MAX_RAW_BYTES): string {
  const text = typeof raw === 'object' && raw !== null ? rawTexts.get(raw) : undefined;
  // A text with \u escapes is serialised again: JSON.stringify writes the only escapes storableJson looks for.
  const json = text !== undefined && !text.includes('\\u') ? text : storableJson(JSON.stringify(raw) ?? 'null');
  // UTF-16 length is at most the UTF-8 size and at least a third of it: count bytes only when it could matter.
  if (json.length * 3 <= maxBytes) return json;
  const size = Buffer.byteLength(json, 'utf8');
  return size <= maxBytes
    ? json
    : JSON.stringify({ omitted: true, reason: `raw response of ${size} bytes is over the ${maxBytes}-byte cap` });
}
