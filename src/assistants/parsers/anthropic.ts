import {
  arrayOf,
  domainOf,
  emptyAnswer,
  isObject,
  objectOf,
  refusal,
  str,
  uniqueSources,
  uniqueStrings,
} from '../parse-helpers.ts';
import type { Citation, ParsedAnswer, Source } from '../types.ts';

const PROVIDER = 'anthropic';

/**
 * Anthropic Message with the web search server tool -> answer. The reply is
 * split into text blocks at citation boundaries, so the text is their
 * concatenation (a paragraph break where tool blocks sat between them),
 * leaving out the announcement before the first search; a text block's
 * citations support that block's span. Searches come from
 * `server_tool_use` inputs, consulted pages from `web_search_tool_result`.
 */
export function parseAnthropicMessage(raw: unknown): ParsedAnswer {
  const msg = objectOf(raw, PROVIDER);
  const blocks = arrayOf(msg.content).filter(isObject);
  // Text before the first search is the model announcing it ("I'll search for..."), not the answer.
  const firstTool = blocks.findIndex((b) => b.type === 'server_tool_use' || b.type === 'web_search_tool_result');
  const answerFrom = firstTool >= 0 && blocks.slice(firstTool).some((b) => b.type === 'text') ? firstTool : 0;

  let text = '';
  let afterTool = false;
  const citations: Citation[] = [];
  const searches: string[] = [];
  const sources: Source[] = [];

  blocks.forEach((block, index) => {
    if (block.type === 'server_tool_use') {
      afterTool = true;
      if (block.name === 'web_search' && isObject(block.input)) {
        const query = str(block.input.query);
        if (query) searches.push(query);
      }
      return;
    }
    if (block.type === 'web_search_tool_result') {
      afterTool = true;
      // An error result is an object with error_code, not a list; it yields no pages.
      for (const r of arrayOf(block.content)) {
        const url = isObject(r) ? str(r.url) : undefined;
        if (url && isObject(r)) sources.push({ url, title: str(r.title) ?? '', domain: domainOf(url) });
      }
      return;
    }
    if (block.type !== 'text' || index < answerFrom) return;
    const blockText = str(block.text) ?? '';
    if (afterTool && text && !text.endsWith('\n')) text += '\n\n';
    afterTool = false;
    const start = text.length;
    text += blockText;
    for (const c of arrayOf(block.citations)) {
      if (!isObject(c) || c.type !== 'web_search_result_location') continue;
      const url = str(c.url);
      if (!url) continue;
      citations.push({
        url,
        title: str(c.title) ?? '',
        domain: domainOf(url),
        startIndex: start,
        endIndex: text.length,
        citedText: str(c.cited_text) ?? blockText,
      });
    }
  });

  if (msg.stop_reason === 'refusal') {
    const details = isObject(msg.stop_details)
      ? (str(msg.stop_details.explanation) ?? str(msg.stop_details.category))
      : undefined;
    throw refusal(PROVIDER, details ?? (text || 'stop_reason refusal'));
  }
  if (!text.trim()) throw emptyAnswer(PROVIDER);

  const titles = new Map(sources.map((s) => [s.url, s.title]));
  return {
    text,
    citations: citations.map((c) => (c.title ? c : { ...c, title: titles.get(c.url) ?? '' })),
    searches: uniqueStrings(searches),
    sources: uniqueSources(sources),
    model: str(msg.model) ?? '',
    usage: isObject(msg.usage) ? msg.usage : null,
  };
}
