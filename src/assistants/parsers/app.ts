import { AssistantError } from '../assistant-error.ts';
import {
  arrayOf,
  domainOf,
  emptyAnswer,
  isObject,
  num,
  objectOf,
  refusal,
  str,
  uniqueSources,
  uniqueStrings,
} from '../parse-helpers.ts';
import type { Citation, ParsedAnswer } from '../types.ts';

/**
 * The app-answer gateway's answer object (our format, docs/assistants.md):
 * `{ id, model, status, answer: { text, citations[], searches[] }, usage }`.
 */
export function parseAppAnswer(raw: unknown, provider: string): ParsedAnswer {
  const res = objectOf(raw, provider);
  if (res.status === 'refused') throw refusal(provider, str(res.reason) ?? 'the app declined');
  if (res.status === 'failed') {
    const error = isObject(res.error) ? res.error : {};
    const message = str(error.message) ?? 'The app answer failed';
    throw error.retryable === true
      ? AssistantError.retryable('server_error', message, { provider })
      : AssistantError.permanent('bad_request', message, { provider });
  }
  const answer = isObject(res.answer) ? res.answer : {};
  const text = str(answer.text) ?? '';
  if (!text.trim()) throw emptyAnswer(provider);

  const citations: Citation[] = [];
  for (const c of arrayOf(answer.citations)) {
    const url = isObject(c) ? str(c.url) : undefined;
    if (!url || !isObject(c)) continue;
    const citation: Citation = { url, title: str(c.title) ?? '', domain: domainOf(url) };
    const start = num(c.startIndex);
    const end = num(c.endIndex);
    if (start !== undefined && end !== undefined && end >= start) {
      citation.startIndex = start;
      citation.endIndex = end;
      citation.citedText = str(c.citedText) ?? text.slice(start, end);
    }
    citations.push(citation);
  }
  return {
    text,
    citations,
    searches: uniqueStrings(arrayOf(answer.searches).filter((q): q is string => typeof q === 'string')),
    sources: uniqueSources(citations.map(({ url, title, domain }) => ({ url, title, domain }))),
    model: str(res.model) ?? '',
    usage: isObject(res.usage) ? res.usage : null,
  };
}
