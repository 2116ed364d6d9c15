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

const PROVIDER = 'gemini';
const BLOCKED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY']);

/**
 * Gemini generateContent with Google Search grounding -> answer.
 * `groundingSupports` segments are byte offsets into a part; they become
 * character offsets into the joined text. Grounding chunk links are
 * vertexaisearch redirects, so a citation's domain is the chunk's title
 * (Google puts the source domain there), not the link's host.
 */
export function parseGeminiResponse(raw: unknown): ParsedAnswer {
  const res = objectOf(raw, PROVIDER);
  const feedback = isObject(res.promptFeedback) ? res.promptFeedback : undefined;
  const candidate = arrayOf(res.candidates).find(isObject);
  if (!candidate) {
    const blocked = str(feedback?.blockReason);
    if (blocked) throw refusal(PROVIDER, `prompt blocked (${blocked})`);
    throw emptyAnswer(PROVIDER);
  }

  let text = '';
  const partOffsets = new Map<number, { offset: number; text: string }>();
  const parts = isObject(candidate.content) ? arrayOf(candidate.content.parts) : [];
  parts.forEach((part, index) => {
    // Thought summaries are the model's reasoning, not its reply.
    if (!isObject(part) || part.thought === true) return;
    const partText = str(part.text);
    if (partText === undefined) return;
    partOffsets.set(index, { offset: text.length, text: partText });
    text += partText;
  });

  const finish = str(candidate.finishReason);
  if (!text.trim()) {
    if (finish && BLOCKED.has(finish)) throw refusal(PROVIDER, `finish reason ${finish}`);
    throw emptyAnswer(PROVIDER);
  }

  const grounding = isObject(candidate.groundingMetadata) ? candidate.groundingMetadata : {};
  const chunks: (Source | null)[] = arrayOf(grounding.groundingChunks).map((chunk) => {
    const web = isObject(chunk) && isObject(chunk.web) ? chunk.web : undefined;
    const url = str(web?.uri);
    if (!web || !url) return null;
    const title = str(web.title) ?? '';
    return { url, title, domain: sourceDomain(str(web.domain), title, url) };
  });

  const citations: Citation[] = [];
  const supported = new Set<number>();
  for (const support of arrayOf(grounding.groundingSupports)) {
    if (!isObject(support)) continue;
    const segment = isObject(support.segment) ? support.segment : {};
    const part = partOffsets.get(num(segment.partIndex) ?? 0) ?? partOffsets.values().next().value;
    const span = part ? charSpan(part.text, num(segment.startIndex) ?? 0, num(segment.endIndex)) : null;
    for (const index of arrayOf(support.groundingChunkIndices)) {
      const chunk = typeof index === 'number' ? chunks[index] : null;
      if (!chunk) continue;
      supported.add(index as number);
      const citation: Citation = { ...chunk };
      if (part && span) {
        citation.startIndex = part.offset + span.start;
        citation.endIndex = part.offset + span.end;
        citation.citedText = str(segment.text) ?? part.text.slice(span.start, span.end);
      }
      citations.push(citation);
    }
  }
  chunks.forEach((chunk, i) => {
    if (chunk && !supported.has(i)) citations.push({ ...chunk });
  });

  return {
    text,
    citations,
    searches: uniqueStrings(arrayOf(grounding.webSearchQueries).filter((q): q is string => typeof q === 'string')),
    sources: uniqueSources(chunks.filter((c): c is Source => c !== null)),
    model: str(res.modelVersion) ?? '',
    usage: isObject(res.usageMetadata) ? res.usageMetadata : null,
  };
}

/** Byte offsets (UTF-8) into `text` -> UTF-16 offsets. */
export function charSpan(text: string, startByte: number, endByte: number | undefined): { start: number; end: number } {
  const bytes = Buffer.from(text, 'utf8');
  const toChar = (b: number) => bytes.subarray(0, Math.max(0, Math.min(b, bytes.length))).toString('utf8').length;
  const start = toChar(startByte);
  const end = endByte === undefined ? text.length : toChar(endByte);
  return { start, end: Math.max(start, Math.min(end, text.length)) };
}

function sourceDomain(domain: string | undefined, title: string, url: string): string {
  if (domain) return domain.toLowerCase().replace(/^www\./, '');
  const t = title.trim().toLowerCase();
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(t)) return t.replace(/^www\./, '');
  return domainOf(url);
}
