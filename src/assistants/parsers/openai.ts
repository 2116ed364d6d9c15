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
import type { Citation, ParsedAnswer, Source } from '../types.ts';

const PROVIDER = 'openai';

/**
 * OpenAI Responses API object -> answer. Text is every `output_text` part
 * of the `message` items; citations are its `url_citation` annotations;
 * searches are the queries of `web_search_call` items whose action is a search.
 */
export function parseOpenAIResponse(raw: unknown): ParsedAnswer {
  const res = objectOf(raw, PROVIDER);
  if (res.status === 'failed') throw failedResponse(res.error);

  let text = '';
  const citations: Citation[] = [];
  const searches: string[] = [];
  const sources: Source[] = [];
  const refusals: string[] = [];

  for (const item of arrayOf(res.output)) {
    if (!isObject(item)) continue;
    if (item.type === 'web_search_call' && isObject(item.action)) {
      const action = item.action;
      if (action.type === undefined || action.type === 'search') {
        const queries = arrayOf(action.queries).filter((q): q is string => typeof q === 'string');
        searches.push(...(queries.length > 0 ? queries : [str(action.query) ?? '']));
        for (const s of arrayOf(action.sources)) {
          const url = isObject(s) ? str(s.url) : undefined;
          if (url) sources.push({ url, title: '', domain: domainOf(url) });
        }
      }
    }
    if (item.type !== 'message') continue;
    for (const part of arrayOf(item.content)) {
      if (!isObject(part)) continue;
      if (part.type === 'refusal') refusals.push(str(part.refusal) ?? '');
      if (part.type !== 'output_text') continue;
      const partText = str(part.text) ?? '';
      if (!partText) continue;
      if (text) text += '\n\n';
      const offset = text.length;
      text += partText;
      for (const a of arrayOf(part.annotations)) {
        if (!isObject(a) || a.type !== 'url_citation') continue;
        const url = str(a.url);
        if (!url) continue;
        const start = num(a.start_index);
        const end = num(a.end_index);
        const citation: Citation = { url, title: str(a.title) ?? '', domain: domainOf(url) };
        if (start !== undefined && end !== undefined && end >= start) {
          citation.startIndex = offset + start;
          citation.endIndex = offset + end;
          citation.citedText = partText.slice(start, end);
        }
        citations.push(citation);
      }
    }
  }

  if (!text.trim()) {
    if (refusals.length > 0) throw refusal(PROVIDER, refusals.join(' '));
    const incomplete = isObject(res.incomplete_details) ? str(res.incomplete_details.reason) : undefined;
    throw emptyAnswer(PROVIDER, incomplete ? `The assistant stopped before answering (${incomplete})` : undefined);
  }

  const titles = new Map(citations.map((c) => [c.url, c.title]));
  return {
    text,
    citations,
    searches: uniqueStrings(searches),
    sources: uniqueSources(sources.map((s) => ({ ...s, title: titles.get(s.url) ?? s.title }))),
    model: str(res.model) ?? '',
    usage: isObject(res.usage) ? res.usage : null,
  };
}

/** A response with status "failed" carries `error.code`; server-side failures are worth a retry. */
function failedResponse(error: unknown): AssistantError {
  const code = isObject(error) ? str(error.code) : undefined;
  const message = (isObject(error) ? str(error.message) : undefined) ?? 'The response failed';
  if (code === 'server_error' || code === 'rate_limit_exceeded')
    return AssistantError.retryable(code === 'server_error' ? 'server_error' : 'rate_limited', message, {
      provider: PROVIDER,
    });
  return AssistantError.permanent('bad_request', `${code ?? 'failed'}: ${message}`, { provider: PROVIDER });
}
