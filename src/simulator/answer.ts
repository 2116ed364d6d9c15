import { createRng, hash, type Rng } from './rng.ts';
import { CAVEATS, INTROS, NOT_BRANDS, OUTROS, SIM_BRANDS, STRENGTHS, THIRD_PARTY } from './words.ts';

/**
 * The provider-neutral answer the simulator renders into each wire format:
 * blocks of text (paragraphs and ranked list items) that cite sources by
 * index, plus the web searches "run" to find them.
 */

export interface SimSource {
  url: string;
  title: string;
  domain: string;
  snippet: string;
}

export type SimBlock =
  | { kind: 'paragraph'; sep: string; text: string; cites: number[] }
  | { kind: 'item'; sep: string; n: number; title: string; detail: string; cites: number[] };

export interface SimAnswer {
  blocks: SimBlock[];
  sources: SimSource[];
  searches: string[];
}

export interface AnswerInput {
  seed: number;
  provider: string;
  model: string;
  prompt: string;
  countryName?: string | null;
}

const CATEGORY_ACRONYMS = new Set([
  'CRM',
  'ERP',
  'SEO',
  'AI',
  'API',
  'SAAS',
  'HR',
  'VPN',
  'CMS',
  'B2B',
  'B2C',
  'USA',
  'UK',
  'US',
  'EU',
  'PC',
  'TV',
  'SUV',
  'LLM',
  'CPU',
  'GPU',
  'IT',
  'SMB',
  'PR',
]);

/** Brand-like names in a prompt: capitalised words that are not question words, and domains. */
export function brandsInPrompt(prompt: string): string[] {
  const names: string[] = [];
  for (const m of prompt.matchAll(/\b([a-z0-9][a-z0-9-]*)\.(?:com|io|ai|co|net|org|app|dev)\b/gi)) {
    const label = m[1] ?? '';
    names.push(label.charAt(0).toUpperCase() + label.slice(1));
  }
  const withoutDomains = prompt.replace(/\b[a-z0-9][a-z0-9-]*\.(?:com|io|ai|co|net|org|app|dev)\b/gi, ' ');
  let current: string[] = [];
  const flush = () => {
    if (current.length > 0) names.push(current.join(' '));
    current = [];
  };
  for (const token of withoutDomains.split(/(\s+|[,;:?!.()"/])/)) {
    if (!token || /^\s+$/.test(token)) continue;
    const word = token.replace(/^['"]|['"]$/g, '');
    const isName =
      /^[A-Z][\w&'-]*$/.test(word) && !NOT_BRANDS.has(word.toLowerCase()) && !CATEGORY_ACRONYMS.has(word.toUpperCase());
    if (isName) current.push(word.replace(/'s$/, ''));
    else flush();
  }
  flush();
  return [...new Set(names)];
}

/** "What are the best CRM tools for startups?" -> "the best CRM tools for startups". */
export function topicOf(prompt: string): string {
  // A prompt may carry persona context in earlier paragraphs; the question is the last one.
  const lines = prompt
    .split(/\n+/)
    .map((l) => l.trim())
    .filter(Boolean);
  let t = (lines.at(-1) ?? '').replace(/[?.!]+$/, '');
  const which = /^(?:which|what)\s+(.+?)\s+(?:is|are)\s+(?:the\s+)?(best|top|most popular|cheapest)\b/i.exec(t);
  if (which) t = `the ${which[2]?.toLowerCase()} ${which[1]}`;
  t = t.replace(/^(what|which|who)\s+(are|is|'s)\s+/i, '');
  t = t.replace(
    /^(can you |could you |please )?(recommend|suggest|list|name|compare|find)\s+(me\s+)?(some\s+|a few\s+)?/i,
    '',
  );
  t = t.replace(/^(how do i choose|how to choose)\s+/i, '');
  if (t.length > 70) t = `${t.slice(0, 70).replace(/\s+\S*$/, '')}`;
  return t || 'this';
}

const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Sightline's own query rewrite instruction (src/domain/prompts/rewrite.ts) gets a question, as a real assistant would give. */
const REWRITE = /^Rewrite this search query as the question[\s\S]*?\nQuery:\s*(.+)\s*$/;

function rewriteAnswer(query: string): SimAnswer {
  const q = query.trim().replace(/[?.!]+$/, '');
  const question = /\b(vs|versus|or)\b/i.test(q)
    ? `Which is better: ${q}?`
    : /^(best|top|cheapest)\b/i.test(q)
      ? `What are the ${q}?`
      : `What is the best option for ${q}?`;
  return { blocks: [{ kind: 'paragraph', sep: '', text: question, cites: [] }], sources: [], searches: [] };
}

export function generateAnswer(input: AnswerInput): SimAnswer {
  const rewrite = REWRITE.exec(input.prompt);
  if (rewrite?.[1]) return rewriteAnswer(rewrite[1]);
  const rng = createRng(hash(`${input.seed}|${input.provider}|${input.model}|${input.prompt}`));
  const topic = topicOf(input.prompt);
  const fromPrompt = brandsInPrompt(input.prompt).filter((_, i) => i === 0 || rng.chance(0.8));
  const count = Math.max(3 + rng.int(3), fromPrompt.length);
  const pool = rng.shuffle(SIM_BRANDS.filter((b) => !fromPrompt.includes(b)));
  const names = rng.shuffle([...fromPrompt, ...pool.slice(0, count - fromPrompt.length)]);

  const sources: SimSource[] = [];
  const sourceFor = (brand: string): number => {
    const s = slug(brand);
    if (rng.chance(0.55)) {
      const page = rng.pick(['', 'pricing', 'features', `blog/${slug(topic)}`]);
      sources.push({
        url: `https://www.${s.replace(/-/g, '')}.com/${page}`,
        title: `${brand} – ${page ? page.split('/')[0] : 'Official Site'}`,
        domain: `${s.replace(/-/g, '')}.com`,
        snippet: `${brand} helps teams with ${topic}.`,
      });
    } else {
      const tpl = rng.pick(THIRD_PARTY);
      const fill = (x: string) =>
        x
          .replace(/\{brand\}/g, brand)
          .replace(/\{brand_\}/g, brand.replace(/\s+/g, '_'))
          .replace(/\{slug\}/g, s)
          .replace(/\{word\}/g, slug(topic).split('-').pop() || 'software')
          .replace(/\{topicSlug\}/g, slug(topic))
          .replace(/\{topic\}/g, topic)
          .replace(/\{id\}/g, hash(`${brand}${topic}`).toString(36));
      sources.push({
        url: `https://www.${tpl.domain}${fill(tpl.path)}`.replace('www.en.', 'en.'),
        title: fill(tpl.title),
        domain: tpl.domain,
        snippet: `What people say about ${brand}.`,
      });
    }
    return sources.length - 1;
  };

  const where = input.countryName ? ` in ${input.countryName}` : '';
  const blocks: SimBlock[] = [
    { kind: 'paragraph', sep: '', text: rng.pick(INTROS).replace('{topic}', `${topic}${where}`), cites: [] },
  ];
  names.forEach((brand, i) => {
    const detail = `${rng.pick(STRENGTHS)}${rng.chance(0.25) ? `, ${rng.pick(CAVEATS)}` : ''}.`;
    blocks.push({
      kind: 'item',
      sep: i === 0 ? '\n\n' : '\n',
      n: i + 1,
      title: brand,
      detail,
      cites: [sourceFor(brand)],
    });
  });
  const general = THIRD_PARTY[3 + rng.int(2)] ?? THIRD_PARTY[3];
  sources.push({
    url: `https://www.${general.domain}${general.path.replace(/\{topicSlug\}/g, slug(topic))}`,
    title: general.title.replace('{topic}', topic),
    domain: general.domain,
    snippet: `A roundup of ${topic}.`,
  });
  blocks.push({ kind: 'paragraph', sep: '\n\n', text: rng.pick(OUTROS), cites: [sources.length - 1] });

  const searches = [
    topic,
    `${topic} reviews`,
    names.length > 1 ? `${names[0]} vs ${names[1]}` : `${names[0]} pricing`,
  ].slice(0, 1 + rng.int(3));
  return { blocks, sources, searches };
}

/**
 * The answer with `name` in its list or not: its item (and the sources only
 * it cited) taken out wherever the generator put it, and when `named` put in
 * at a random place, the list renumbered. A prompt that itself holds the
 * name still names it in its opening line: scripts for random answers use
 * prompts that do not.
 */
export function withMention(base: SimAnswer, name: string, named: boolean, rng: Rng): SimAnswer {
  const lower = name.toLowerCase();
  const isName = (b: SimBlock) => b.kind === 'item' && b.title.toLowerCase() === lower;
  const kept = base.blocks.filter((b) => !isName(b));
  const citedByKept = new Set(kept.flatMap((b) => b.cites));
  const removed = new Set(base.blocks.filter(isName).flatMap((b) => b.cites));
  const keep = base.sources.map((_, i) => !removed.has(i) || citedByKept.has(i));
  const newIndex: number[] = [];
  let next = 0;
  keep.forEach((k, i) => (newIndex[i] = k ? next++ : -1));
  const sources = base.sources.filter((_, i) => keep[i]);
  let blocks: SimBlock[] = kept.map((b) => ({
    ...b,
    cites: b.cites.map((c) => newIndex[c] ?? -1).filter((c) => c >= 0),
  }));
  if (named) {
    const items = blocks.filter((b) => b.kind === 'item').length;
    const at = rng.int(items + 1);
    const firstItem = blocks.findIndex((b) => b.kind === 'item');
    const place = firstItem < 0 ? Math.min(1, blocks.length) : firstItem + at;
    const item: SimBlock = { kind: 'item', sep: '\n', n: 0, title: name, detail: `${rng.pick(STRENGTHS)}.`, cites: [] };
    blocks = [...blocks.slice(0, place), item, ...blocks.slice(place)];
  }
  let n = 0;
  blocks = blocks.map((b) => (b.kind === 'item' ? { ...b, n: ++n, sep: n === 1 ? '\n\n' : '\n' } : b));
  return { ...base, blocks, sources };
}

export interface ScriptOverride {
  text?: string;
  citations?: { url: string; title?: string }[];
  searches?: string[];
}

/** A script's fields replace the generated ones; its citations are spread over its paragraphs. */
export function applyOverride(base: SimAnswer, script: ScriptOverride): SimAnswer {
  let { blocks, sources, searches } = base;
  if (script.citations) {
    sources = script.citations.map((c) => {
      const domain = safeDomain(c.url);
      return { url: c.url, title: c.title ?? domain, domain, snippet: c.title ?? '' };
    });
  }
  if (script.text !== undefined) {
    blocks = [];
    const parts = script.text.split(/(\n+)/);
    let sep = '';
    for (const part of parts) {
      if (/^\n+$/.test(part)) sep += part;
      else if (part) {
        blocks.push({ kind: 'paragraph', sep, text: part, cites: [] });
        sep = '';
      }
    }
    if (blocks.length === 0 && script.text) blocks.push({ kind: 'paragraph', sep: '', text: script.text, cites: [] });
  }
  if (script.text !== undefined || script.citations) {
    blocks = blocks.map((b) => ({ ...b, cites: [] }));
    if (blocks.length > 0) sources.forEach((_, i) => blocks[i % blocks.length]?.cites.push(i));
  }
  if (script.searches) searches = script.searches;
  return { blocks, sources, searches };
}

function safeDomain(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}

export interface LaidOut {
  text: string;
  blocks: { block: SimBlock; start: number; end: number; suffixEnd: number }[];
}

export function blockText(block: SimBlock): string {
  return block.kind === 'paragraph' ? block.text : `${block.n}. **${block.title}** – ${block.detail}`;
}

/** Joins the blocks into one text; `suffix` adds per-block citation markup (links, [n] markers). */
export function layout(answer: SimAnswer, suffix?: (block: SimBlock) => string): LaidOut {
  let text = '';
  const blocks: LaidOut['blocks'] = [];
  for (const block of answer.blocks) {
    text += text ? block.sep : '';
    const start = text.length;
    text += blockText(block);
    const end = text.length;
    text += suffix?.(block) ?? '';
    blocks.push({ block, start, end, suffixEnd: text.length });
  }
  return { text, blocks };
}
