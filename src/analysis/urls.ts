/** A URL written in the answer text, with the range of its host. */
export interface UrlSpan {
  start: number;
  end: number;
  hostStart: number;
  hostEnd: number;
}

const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>()[\]{}"'`|]+/gi;

/** Cheap pre-check first: most answers carry their links as citations, not in the text. */
export function findUrlSpans(text: string): UrlSpan[] {
  if (!text.includes('://') && !/www\./i.test(text)) return [];
  const spans: UrlSpan[] = [];
  for (const m of text.matchAll(URL_RE)) {
    const start = m.index;
    const raw = m[0].replace(/[.,;:!?*_]+$/, '');
    const scheme = raw.indexOf('://');
    const hostStart = start + (scheme >= 0 ? scheme + 3 : 0);
    const rest = text.slice(hostStart, start + raw.length);
    const cut = rest.search(/[/?#:]/);
    spans.push({ start, end: start + raw.length, hostStart, hostEnd: cut < 0 ? start + raw.length : hostStart + cut });
  }
  return spans;
}

export function spanAt(spans: readonly UrlSpan[], index: number): UrlSpan | null {
  for (const s of spans) if (index >= s.start && index < s.end) return s;
  return null;
}
