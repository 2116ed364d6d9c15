import type { BrandBook } from './brand-book.ts';
import { capitalsAround, nameCasing, type CapitalsAround } from './casing.ts';
import { IS_WORD } from './fold.ts';
import { findInlineItems } from './inline-lists.ts';
import { linesOf, type Lines } from './lines.ts';
import { tokensOf, type Tokens } from './tokens.ts';
import { findUrlSpans, spanAt, type UrlSpan } from './urls.ts';

export interface Mention {
  entity: number;
  start: number;
  end: number;
  kind: 'name' | 'domain';
}

function word(text: string, i: number): boolean {
  return i >= 0 && i < text.length && IS_WORD[text.charCodeAt(i)] === 1;
}

/**
 * A name ends where a word ends: "Acme" is not in "Acmeville" nor "NotAcme";
 * "Acme's", "**Acme**", "[Acme](...)" and "Acme-powered" name it. A name is
 * never part of a dotted token it does not fill: "acme.com.evil.io",
 * "Node.js" for "Node", "shop.acme.io" for the alias "Acme.io".
 */
function nameFits(text: string, start: number, end: number, tokensOfText: () => Tokens): boolean {
  if (word(text, start) && word(text, start - 1)) return false;
  if (word(text, end - 1) && word(text, end)) return false;
  const before = text[start - 1];
  const after = text[end];
  if (before !== '.' && before !== '-' && after !== '.' && after !== '-') return true;
  const tokens = tokensOfText();
  const l = tokens.left(start);
  const r = tokens.right(end);
  if (l === start && r === end) return true;
  return !tokens.dotted(l, r);
}

/**
 * A domain is written when it stands alone or as the end of a host:
 * "acme.com", "app.acme.com", "https://www.acme.com/x", "sales@acme.com";
 * not "notacme.com", "my-acme.com", "acme.com.evil.io", "acme.community",
 * nor in the path of another site's URL.
 */
function domainFits(text: string, start: number, end: number, urls: readonly UrlSpan[]): boolean {
  const before = text[start - 1];
  if (before === '-' || word(text, start - 1)) return false;
  if (before === '.' && !word(text, start - 2)) return false;
  const after = text[end];
  if (after === '-' || word(text, end)) return false;
  if (after === '.' && word(text, end + 1)) return false;
  const url = spanAt(urls, start);
  return url === null || (start >= url.hostStart && end <= url.hostEnd);
}

const SKIP_BACK = new Set([' ', '\t', '*', '_', '#', '>', '[', '(', '"', "'", '`', '-', '+', '•']);

/** Start of the text, of a line, of a list item or after `.`, `!`, `?`, `:`. */
function atSentenceStart(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && SKIP_BACK.has(text[i] ?? '')) i--;
  if (i < 0) return true;
  const c = text[i];
  return c === '\n' || c === '.' || c === '!' || c === '?' || c === ':';
}

/** Bold, italic, code, a link text or a heading: the writer marked it as a name. */
function marked(text: string, start: number, end: number, lines: Lines): boolean {
  const before = text[start - 1];
  const after = text[end];
  if (before === '*' || before === '_' || before === '`' || before === '[') return true;
  if (after === '*' || after === '_' || after === '`' || after === ':') return true;
  const lineStart = lines.startOf(start);
  if (text[lineStart] === '#') return true;
  // The whole head of a list item ("2. Notion", "- Notion (free)"): listed as an option.
  return lines.listHead(lineStart, start) && ITEM_TAIL.test(text.slice(end, end + 3));
}

const ITEM_TAIL = /^(?:\s*$|\s*\n|\s*[(–—]|\s+-\s)/;

const DOMAIN = 1;
const CASED = 2;

/**
 * `book.info` packed into two typed arrays, built once per book: each hit
 * reads a few bytes from a small table instead of a PatternInfo object
 * somewhere in the heap, which measurably mattered with ~50 hits an answer.
 */
interface PackedInfo {
  entityOf: Int32Array;
  /** DOMAIN for a domain pattern, CASED for a name whose casing must match */
  flagsOf: Uint8Array;
}

const packed = new WeakMap<BrandBook, PackedInfo>();

function packedInfo(book: BrandBook): PackedInfo {
  let p = packed.get(book);
  if (p === undefined) {
    p = {
      entityOf: Int32Array.from(book.info, (i) => i.entity),
      flagsOf: Uint8Array.from(book.info, (i) => (i.kind === 'domain' ? DOMAIN : 0) | (i.casings !== null ? CASED : 0)),
    };
    packed.set(book, p);
  }
  return p;
}

/**
 * Every brand and competitor mention, in text order, without overlaps (the
 * longest name wins at one place: "Acme Cloud" over "Acme"). An everyday-word
 * name must be written as the book writes it or wholly in capitals within
 * mixed-case text (casing.ts). At the start of a sentence, where its first
 * capital may be the sentence's ("Notion of ..."), it counts only when a later
 * capital shows a name ("Bar Labs builds ..."), when it is marked up as a
 * name, or when the answer names the same brand elsewhere.
 */
export function findMentions(text: string, book: BrandBook): Mention[] {
  const hits = book.scan(text);
  if (hits.length === 0) return [];
  const urls = findUrlSpans(text);
  const { entityOf, flagsOf } = packedInfo(book);
  const accepted: Candidate[] = [];
  // What more than one name may ask of the text, kept from name to name (made on first use).
  let tokens: Tokens | null = null;
  const tokensOfText = (): Tokens => (tokens ??= tokensOf(text));
  let lines: Lines | null = null;
  let around: CapitalsAround | null = null;
  for (const h of hits) {
    const flags = flagsOf[h.pattern] ?? 0;
    const entity = entityOf[h.pattern] ?? 0;
    if ((flags & DOMAIN) !== 0) {
      if (domainFits(text, h.start, h.end, urls)) accepted.push({ entity, start: h.start, end: h.end, kind: 'domain', doubtful: false });
      continue;
    }
    if (spanAt(urls, h.start) !== null) continue;
    if (!nameFits(text, h.start, h.end, tokensOfText)) continue;
    let doubtful = false;
    if ((flags & CASED) !== 0) {
      const casing = nameCasing(text, h.start, h.end, book.info[h.pattern]?.casings ?? [], (around ??= capitalsAround(text)));
      if (casing === 'none') continue;
      doubtful = casing === 'first' && atSentenceStart(text, h.start) && !marked(text, h.start, h.end, (lines ??= linesOf(text)));
    }
    accepted.push({ entity, start: h.start, end: h.end, kind: 'name', doubtful });
  }
  sortByStartLongestFirst(accepted);
  const chosen: Candidate[] = [];
  let reach = 0;
  let anyDoubtful = false;
  for (const m of accepted) {
    if (m.start < reach) continue;
    chosen.push(m);
    reach = m.end;
    if (m.doubtful) anyDoubtful = true;
  }
  const kept = anyDoubtful ? dropUnconfirmed(text, chosen) : chosen;
  return kept.map(({ entity, start, end, kind }) => ({ entity, start, end, kind }));
}

type Candidate = Mention & { doubtful: boolean };

/**
 * By start, the longest first at one start; stable. Insertion sort: hits
 * arrive in end order, which is start order but for names inside longer
 * ones, so each element moves at most a few places.
 */
function sortByStartLongestFirst(xs: Candidate[]): void {
  for (let i = 1; i < xs.length; i++) {
    const x = xs[i]!;
    let j = i - 1;
    while (j >= 0 && (xs[j]!.start > x.start || (xs[j]!.start === x.start && xs[j]!.end < x.end))) {
      xs[j + 1] = xs[j]!;
      j--;
    }
    xs[j + 1] = x;
  }
}

/**
 * Doubtful mentions count only when the same entity is named elsewhere
 * without doubt, or when they head an item of a list written on one line
 * ("Top options: 1. Notion 2. Foo"), as the head of a list line does.
 */
function dropUnconfirmed(text: string, chosen: readonly Candidate[]): Candidate[] {
  const confirmed = new Set(chosen.filter((m) => !m.doubtful).map((m) => m.entity));
  const heads = new Set(findInlineItems(text).map((item) => item.bodyStart + (LEAD_MARKUP.exec(text.slice(item.bodyStart, item.bodyStart + 4))?.[0].length ?? 0)));
  return chosen.filter((m) => !m.doubtful || confirmed.has(m.entity) || heads.has(m.start));
}

const LEAD_MARKUP = /^[*_[`"'(]+/;
