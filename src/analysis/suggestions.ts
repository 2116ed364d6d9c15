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
/** A chain of names, tried at one offset (sticky): see chainsIn(). */
export const CHAIN_RE = new RegExp(
  String.raw`${NAME}(?:\s${NAME}){0,3}(?:${CHAIN_SEP}${NAME}(?:\s${NAME}){0,3})+`,
  'uy',
);
/** The one name at an offset, as long as it goes (sticky). */
const NAME_AT = new RegExp(NAME, 'uy');
/** Where a name can start. */
const NAME_START = /[A-Z0-9\u00C0-\u00DE\u0391-\u03A9\u0410-\u042F]/g;
const PART_RE = new RegExp(`${NAME}(?:\\s${NAME}){0,3}`, 'gu');
/**
 * What every chain holds: a separator of CHAIN_SEP followed by the first
 * letter of a NAME. Text without it has no chain, so CHAIN_RE, which tries
 * every capitalised word and costs about three times as much, is not run
 * over it ("Compared with Foo, it is simpler" has no link: ", it" is lower case).
 */
const CHAIN_LINK =
  /(?:,\s*(?:(?:and|or)\s+)?|\s(?:and|or|vs\.?|versus)\s+|\/\s*)[A-Z0-9\u00C0-\u00DE\u0391-\u03A9\u0410-\u042F]/u;
const LEAD_MARKUP = /^[\s*_[`"'(]+/;
const MAX_LENGTH = 40;

/**
 * Whether a mention overlaps [start, end). `mentions` are in text order and
 * do not overlap, as findMentions gives them, so their ends are in order too
 * and the first one ending after `start` is found by binary search: walked
 * from the first mention, a list of thousands of items read every mention
 * once an item.
 */
function overlaps(mentions: readonly Mention[], start: number, end: number): boolean {
  let lo = 0;
  let hi = mentions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((mentions[mid]?.end ?? 0) <= start) lo = mid + 1;
    else hi = mid;
  }
  const m = mentions[lo];
  return m !== undefined && m.start < end;
}

/**
 * Every chain of names in the text, as `text.matchAll(/<CHAIN_RE>/gu)` finds
 * them, without its cost: that tried every offset, and from each capital
 * read the name there to its end, so a text of one long run of capitals or
 * of "A.A.A..." read the run once per capital. A chain's first name is
 * always followed by white space, a comma or a slash, so it reaches the end
 * of the longest name at its start; a start inside that name ends the same
 * way and cannot succeed where that start failed. So after a failed start
 * the search goes on past the whole name.
 */
export function* chainsIn(text: string): Generator<{ index: number; text: string }> {
  let from = 0;
  while (from < text.length) {
    NAME_START.lastIndex = from;
    const start = NAME_START.exec(text);
    if (start === null) return;
    CHAIN_RE.lastIndex = start.index;
    const chain = CHAIN_RE.exec(text);
    if (chain !== null) {
      yield { index: start.index, text: chain[0] };
      from = start.index + chain[0].length;
      continue;
    }
    NAME_AT.lastIndex = start.index;
    from = NAME_AT.test(text) ? NAME_AT.lastIndex : start.index + 1;
  }
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
export function findSuggestions(
  text: string,
  mentions: readonly Mention[],
  items: readonly ListItem[],
  isTracked: (folded: string) => boolean,
): string[] {
  if (mentions.length === 0) return [];
  const found: { name: string; at: number }[] = [];
  const seen = new Set<string>();
  const add = (name: string, at: number): void => {
    const clean = name.replace(/^The\s+/, '').replace(/[.'-]+$/, '');
    // A set of the names kept (lower case), not a search of them: a list may suggest thousands.
    if (brandLike(clean) && !isTracked(fold(clean)) && !seen.has(clean.toLowerCase())) {
      seen.add(clean.toLowerCase());
      found.push({ name: clean, at });
    }
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

  for (const chain of CHAIN_LINK.test(text) ? chainsIn(text) : []) {
    const base = chain.index;
    const parts = [...chain.text.matchAll(PART_RE)].map((p) => ({
      start: base + p.index,
      end: base + p.index + p[0].length,
      name: p[0],
    }));
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
export function tallySuggestions(
  perAnswer: readonly (readonly string[])[],
  minAnswers = 2,
): { name: string; count: number }[] {
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
    .map((g) => ({
      name: [...g.spellings].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]?.[0] ?? '',
      count: g.count,
    }))
    .sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : 1));
}
