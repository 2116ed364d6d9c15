import {
  arrayOf,
  domainOf,
  emptyAnswer,
  isObject,
  num,
  objectOf,
  str,
  uniqueSources,
  type Json,
} from '../parse-helpers.ts';
import type { Citation, ParsedAnswer, Source } from '../types.ts';

/**
 * SerpApi-style Google AI Overview and AI Mode results -> answer. Both carry
 * `text_blocks` (paragraphs, headings, lists, tables, expandables) whose
 * `reference_indexes` point into `references`. Blocks are rendered to plain
 * text, one per line; each reference a block cites supports that block's span.
 * The search page's own query is the one search it ran.
 */

/** Raw as stored: the google search response, plus the AI Overview follow-up when one was needed. */
export interface SerpOverviewRaw {
  search: unknown;
  aiOverview?: unknown;
}

export function parseSerpOverview(raw: unknown, query: string): ParsedAnswer {
  const provider = 'google-ai-overview';
  const stored = objectOf(raw, provider);
  const body = objectOf('search' in stored ? (stored.aiOverview ?? stored.search) : stored, provider);
  const overview = isObject(body.ai_overview) ? body.ai_overview : undefined;
  if (!overview) throw emptyAnswer(provider, 'Google showed no AI Overview for this query');
  if (str(overview.error))
    throw emptyAnswer(provider, `Google's AI Overview could not be read: ${str(overview.error)}`);
  return render(provider, overview, query, 'ai-overview');
}

export function parseSerpAiMode(raw: unknown, query: string): ParsedAnswer {
  const provider = 'google-ai-mode';
  return render(provider, objectOf(raw, provider), query, 'ai-mode');
}

function render(provider: string, container: Json, query: string, model: string): ParsedAnswer {
  const references = new Map<number, Source>();
  arrayOf(container.references).forEach((r, position) => {
    if (!isObject(r)) return;
    const url = str(r.link) ?? str(r.url);
    if (!url) return;
    references.set(num(r.index) ?? position, {
      url,
      title: str(r.title) ?? str(r.source) ?? '',
      domain: domainOf(url),
    });
  });

  const lines: string[] = [];
  const citations: Citation[] = [];
  let length = 0;
  const cited = new Set<number>();

  const emit = (line: string, refs: unknown): void => {
    const clean = line.trimEnd();
    if (!clean.trim()) return;
    if (lines.length > 0) length += 1; // the newline joining lines
    const start = length;
    lines.push(clean);
    length += clean.length;
    for (const idx of arrayOf(refs)) {
      const ref = typeof idx === 'number' ? references.get(idx) : undefined;
      if (!ref) continue;
      cited.add(idx as number);
      citations.push({ ...ref, startIndex: start, endIndex: length, citedText: clean });
    }
  };

  const walk = (blocks: unknown[], depth: number): void => {
    for (const block of blocks) {
      if (!isObject(block)) continue;
      const refs = block.reference_indexes;
      switch (block.type) {
        case 'list':
          walkList(arrayOf(block.list), depth, emit);
          break;
        case 'table':
          for (const row of arrayOf(block.table))
            emit(
              arrayOf(row)
                .map((c) => (typeof c === 'string' ? c : ''))
                .join(' | '),
              refs,
            );
          break;
        case 'expandable':
          emit(str(block.title) ?? '', refs);
          walk(arrayOf(block.text_blocks), depth + 1);
          break;
        case 'code':
          emit(str(block.code) ?? '', refs);
          break;
        default:
          emit(str(block.snippet) ?? str(block.title) ?? '', refs);
          if (Array.isArray(block.list)) walkList(block.list, depth, emit);
      }
    }
  };
  walk(arrayOf(container.text_blocks), 0);

  let text = lines.join('\n');
  // Some AI Mode results carry only a markdown rendering of the answer.
  if (!text.trim()) text = str(container.reconstructed_markdown) ?? str(container.markdown) ?? '';
  if (!text.trim()) throw emptyAnswer(provider);

  for (const [idx, ref] of references) if (!cited.has(idx)) citations.push({ ...ref });
  return {
    text,
    citations,
    searches: query ? [query] : [],
    sources: uniqueSources([...references.values()]),
    model,
    usage: null,
  };
}

function walkList(items: unknown[], depth: number, emit: (line: string, refs: unknown) => void): void {
  for (const item of items) {
    if (!isObject(item)) continue;
    const title = str(item.title);
    const snippet = str(item.snippet) ?? '';
    // SerpApi list titles often end with their own colon ("HubSpot CRM:").
    const label = title ? `${title.trim().replace(/:$/, '')}${snippet ? ': ' : ''}` : '';
    emit(`${'  '.repeat(depth)}- ${label}${snippet}`, item.reference_indexes);
    if (Array.isArray(item.list)) walkList(item.list, depth + 1, emit);
  }
}
