import { arrayOf, domainOf, emptyAnswer, isObject, objectOf, refusal, str, uniqueSources } from '../parse-helpers.ts';
import type { Citation, ParsedAnswer, Source } from '../types.ts';

const PROVIDER = 'perplexity';

/**
 * Perplexity Sonar chat completion -> answer. `citations` lists source URLs
 * that the text refers to as [1], [2]...; `search_results` adds titles. A
 * marker's span is the sentence (or list item) it closes. Sonar does not
 * report its search queries, so `searches` stays empty.
 */
export function parsePerplexityCompletion(raw: unknown): ParsedAnswer {
  const res = objectOf(raw, PROVIDER);
  const choice = arrayOf(res.choices).find(isObject);
  const message = choice && isObject(choice.message) ? choice.message : undefined;
  // Reasoning models prefix their answer with a <think> block that is not part of the reply.
  const text = (str(message?.content) ?? '').replace(/<think>[\s\S]*?<\/think>\s*/g, '');
  if (!text.trim()) {
    if (choice && choice.finish_reason === 'content_filter') throw refusal(PROVIDER, 'content filter');
    throw emptyAnswer(PROVIDER);
  }

  const results: Source[] = [];
  for (const r of arrayOf(res.search_results)) {
    const url = isObject(r) ? str(r.url) : undefined;
    if (url && isObject(r)) results.push({ url, title: str(r.title) ?? '', domain: domainOf(url) });
  }
  const urls = arrayOf(res.citations).filter((u): u is string => typeof u === 'string');
  const cited = urls.length > 0 ? urls : results.map((r) => r.url);
  const titles = new Map(results.map((r) => [r.url, r.title]));

  const citations: Citation[] = [];
  const used = new Set<number>();
  for (const m of text.matchAll(/\[(\d{1,3})\]/g)) {
    const n = Number(m[1]);
    const url = cited[n - 1];
    if (!url || m.index === undefined) continue;
    used.add(n - 1);
    const start = sentenceStart(text, m.index);
    citations.push({
      url,
      title: titles.get(url) ?? '',
      domain: domainOf(url),
      startIndex: start,
      endIndex: m.index,
      citedText: text.slice(start, m.index).trim(),
    });
  }
  cited.forEach((url, i) => {
    if (!used.has(i)) citations.push({ url, title: titles.get(url) ?? '', domain: domainOf(url) });
  });

  return {
    text,
    citations,
    searches: [],
    sources: uniqueSources(
      results.length > 0 ? results : cited.map((url) => ({ url, title: '', domain: domainOf(url) })),
    ),
    model: str(res.model) ?? '',
    usage: isObject(res.usage) ? res.usage : null,
  };
}

/** Start of the sentence or list item that ends at `index`, skipping markers right before it. */
function sentenceStart(text: string, index: number): number {
  let i = index;
  while (i > 0 && /[\s\]\d[]/.test(text[i - 1] ?? '')) i--;
  for (let j = i - 1; j >= 0; j--) {
    const ch = text[j];
    if (ch === '\n') {
      const item = /^\s*(?:[-*•]|\d+[.)])?\s*/.exec(text.slice(j + 1, i));
      return j + 1 + (item?.[0].length ?? 0);
    }
    if ((ch === '.' || ch === '!' || ch === '?') && /\s/.test(text[j + 1] ?? '')) {
      let k = j + 1;
      while (k < i && /\s/.test(text[k] ?? '')) k++;
      return k;
    }
  }
  return 0;
}
