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
    const raw = m[0].slice(0, withoutTrailingPunctuation(m[0]));
    const scheme = raw.indexOf('://');
    const hostStart = start + (scheme >= 0 ? scheme + 3 : 0);
    const rest = text.slice(hostStart, start + raw.length);
    const cut = rest.search(/[/?#:]/);
    spans.push({ start, end: start + raw.length, hostStart, hostEnd: cut < 0 ? start + raw.length : hostStart + cut });
  }
  return spans;
}

/**
 * Length of `url` without the punctuation that ends the sentence around it
 * ("see https://acme.com."), as `url.replace(/[.,;:!?*_]+$/, '')` gives, read
 * backwards: that expression tried every position of a run of such marks
 * and read the rest of the run from each (12 s for a URL of 100,000 dots).
 */
export function withoutTrailingPunctuation(url: string): number {
  let end = url.length;
  while (end > 0 && TRAILING.has(url.charCodeAt(end - 1))) end--;
  return end;
}

const TRAILING = new Set([...'.,;:!?*_'].map((c) => c.charCodeAt(0)));

/** The span holding `index`, or null. `spans` are in text order and do not overlap, so this is a binary search. */
export function spanAt(spans: readonly UrlSpan[], index: number): UrlSpan | null {
  let lo = 0;
  let hi = spans.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const s = spans[mid]!;
    if (index < s.start) hi = mid;
    else if (index >= s.end) lo = mid + 1;
    else return s;
  }
  return null;
}
