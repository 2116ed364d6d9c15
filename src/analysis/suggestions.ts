import { fold } from './fold.ts';
import { isEverydayOrGuidePhrase } from './lexicon.ts';
import type { ListItem } from './lists.ts';
import type { Mention } from './mentions.ts';

/**
 * A brand-like name: up to four capitalised or numeric words ("HubSpot",
 * "Monday.com", "Zoho Projects", "1Password"), optionally joined by "&".
 */
const NAME = String.raw`[A-Z0-9\u00C0-\u00DE\u0391-\u03A9\u0410-\u042F][\p{L}\p{N}]*(?:[.'+-][\p{L}\p{N}]+)*\+*`;
const NAME_RE = new RegExp(String.raw`^${NAME}(?:\s(?:&\s)?${NAME}){0,3}`, 'u');
const CHAIN_SEP = String.raw`(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+|\s*\/\s*)`;
const CHAIN_RE = new RegExp(String.raw`${NAME}(?:\s${NAME}){0,3}(?:${CHAIN_SEP}${NAME}(?:\s${NAME}){0,3})+`, 'gu');
const PART_RE = new RegExp(`${NAME}(?:\\s${NAME}){0,3}`, 'gu');
/**
 * What every chain holds: a separator of CHAIN_SEP followed by the first
 * letter of a NAME. Text without it has no chain, so CHAIN_RE, which tries
 * every capitalised word and costs about three times as much, is not run
 * over it ("Compared with Foo, it is simpler" has no link: ", it" is lower case).
 */
const CHAIN_LINK = /(?:,\s*(?:(?:and|or)\s+)?|\s(?:and|or|vs\.?|versus)\s+|\/\s*)[A-Z0-9\u00C0-\u00DE\u0391-\u03A9\u0410-\u042F]/u;
const LEAD_MARKUP = /^[\s*_[`"'(]+/;
const MAX_LENGTH = 40;

/** `mentions` in text order, as findMentions gives them: the walk stops at the first one past `end`. */
function overlaps(mentions: readonly Mention[], start: number, end: number): boolean {
  for (const m of mentions) {
    if (m.start >= end) return false;
    if (m.end > start) return true;
  }
  return false;
}

function brandLike(name: string): boolean {
  const trimmed = name.replace(/^The\s+/, '');
  if (trimmed.length < 2 || trimmed.length > MAX_LENGTH) return false;
  if (/^\d+$/.test(trimmed.replace(/[\s.,]/g, ''))) return false;
  return !isEverydayOrGuidePhrase(fold(trimmed));
}

/**
 * Untracked brand-like names that this answer lists beside a tracked brand:
 * the leading names of list items (one-line lists included; in a table with
 * a rank column, the cell after the rank) in a list where another item is led by a
 * tracked brand, and names chained with a tracked brand in running text
 * ("Acme, Foo and Bar"). Everyday words, tracked names and the brand's own
 * terms are never suggested. Each name once per answer, in text order.
 */
export function findSuggestions(text: string, mentions: readonly Mention[], items: readonly ListItem[], isTracked: (folded: string) => boolean): string[] {
  if (mentions.length === 0) return [];
  const found: { name: string; at: number }[] = [];
  const add = (name: string, at: number): void => {
    const clean = name.replace(/^The\s+/, '').replace(/[.'-]+$/, '');
    if (brandLike(clean) && !isTracked(fold(clean)) && !found.some((f) => f.name.toLowerCase() === clean.toLowerCase())) found.push({ name: clean, at });
  };

  for (const kind of ['numbered', 'bullet', 'table'] as const) {
    const list = items.filter((i) => i.kind === kind);
    const heads = list.map((item) => {
      // A ranked table row's head is in the cell after its rank.
      const from = item.rank === null ? item.bodyStart : text.indexOf('|', item.bodyStart) + 1;
      const body = text.slice(from, item.end);
      const skip = LEAD_MARKUP.exec(body)?.[0].length ?? 0;
      const m = NAME_RE.exec(body.slice(skip));
      return m === null ? null : { start: from + skip, end: from + skip + m[0].length, name: m[0] };
    });
    const trackedLead = heads.some((h) => h !== null && overlaps(mentions, h.start, h.end));
    if (!trackedLead) continue;
    for (const h of heads) if (h !== null && !overlaps(mentions, h.start, h.end)) add(h.name, h.start);
  }

  const chains = CHAIN_LINK.test(text) ? text.matchAll(CHAIN_RE) : [];
  for (const chain of chains) {
    const base = chain.index;
    const parts = [...chain[0].matchAll(PART_RE)].map((p) => ({ start: base + p.index, end: base + p.index + p[0].length, name: p[0] }));
    if (!parts.some((p) => overlaps(mentions, p.start, p.end))) continue;
    for (const p of parts) if (!overlaps(mentions, p.start, p.end)) add(p.name, p.start);
  }
  return found.sort((a, b) => a.at - b.at).map((f) => f.name);
}

/**
 * Suggestions across answers, for the competitors report: each name with
 * the number of answers that suggested it, those seen in at least
 * `minAnswers` answers (CONTRACT.md: two), most frequent first. Names are
 * grouped case-insensitively and shown in their most frequent spelling.
 */
export function tallySuggestions(perAnswer: readonly (readonly string[])[], minAnswers = 2): { name: string; count: number }[] {
  const groups = new Map<string, { count: number; spellings: Map<string, number> }>();
  for (const names of perAnswer) {
    for (const name of new Set(names)) {
      const key = fold(name);
      const g = groups.get(key) ?? { count: 0, spellings: new Map<string, number>() };
      g.count++;
      g.spellings.set(name, (g.spellings.get(name) ?? 0) + 1);
      groups.set(key, g);
    }
  }
  return [...groups.values()]
    .filter((g) => g.count >= minAnswers)
    .map((g) => ({ name: [...g.spellings].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '', count: g.count }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}
