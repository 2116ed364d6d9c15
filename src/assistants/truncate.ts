import type { Citation } from './types.ts';

/** Answers over this size are cut and flagged: no assistant reply is legitimately longer. */
export const MAX_ANSWER_BYTES = 200 * 1024;
/** Raw provider JSON past this size is not stored whole. */
export const MAX_RAW_BYTES = 2 * 1024 * 1024;

export function capAnswer(text: string, citations: Citation[], maxBytes = MAX_ANSWER_BYTES): { text: string; citations: Citation[]; truncated: boolean } {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, citations, truncated: false };
  // Cutting bytes can split a character; drop the replacement character that leaves.
  const cut = Buffer.from(text, 'utf8').subarray(0, maxBytes).toString('utf8').replace(/\uFFFD$/, '');
  const kept = citations
    .filter((c) => c.startIndex === undefined || c.startIndex < cut.length)
    .map((c) => (c.endIndex !== undefined && c.endIndex > cut.length ? { ...c, endIndex: cut.length } : c));
  return { text: cut, citations: kept, truncated: true };
}

export function capRaw(raw: unknown, maxBytes = MAX_RAW_BYTES): unknown {
  const size = Buffer.byteLength(JSON.stringify(raw) ?? '', 'utf8');
  return size <= maxBytes ? raw : { omitted: true, reason: `raw response of ${size} bytes is over the ${maxBytes}-byte cap` };
}
