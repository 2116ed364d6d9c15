import { AssistantError } from './assistant-error.ts';
import type { Source } from './types.ts';

/** Small readers for untyped provider JSON: parsers never trust a shape. */

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function objectOf(value: unknown, provider: string, what = 'response'): Json {
  if (!isObject(value)) {
    throw AssistantError.permanent('malformed_response', `The assistant's ${what} is not a JSON object`, { provider });
  }
  return value;
}

export function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function num(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Host without `www.`, lower case; '' when the URL does not parse. */
export function domainOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, '');
  } catch {
    return '';
  }
}

export function uniqueStrings(values: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const v of values) {
    const t = v.trim();
    if (t && !seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

export function uniqueSources(sources: Source[]): Source[] {
  const seen = new Set<string>();
  return sources.filter((s) => (s.url && !seen.has(s.url) ? (seen.add(s.url), true) : false));
}

export function emptyAnswer(provider: string, why = 'The assistant gave an empty answer'): AssistantError {
  return AssistantError.permanent('empty_answer', why, { provider });
}

export function refusal(provider: string, detail: string): AssistantError {
  return AssistantError.permanent('refusal', `The assistant declined to answer: ${detail.slice(0, 300)}`, { provider });
}
