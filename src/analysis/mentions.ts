import type { RawHit } from './automaton.ts';
import type { BrandBook } from './brand-book.ts';
import { allowedHits } from './exclusions.ts';
import {
  couldTip,
  deferredFeatures,
  eagerFeatures,
  sentenceNear,
  type AnswerEvidence,
  type Deferred,
  type FeatureSink,
  type Occurrence,
  type ReaderModel,
} from './reading.ts';
import { headsItem, topicNear } from './topic.ts';
import { READER_MODEL } from './reader-model.ts';
import { IS_WORD } from './fold.ts';
import { isEverydayWord, isGivenName } from './lexicon.ts';
import { findInlineItems } from './inline-lists.ts';
import { lineStarts } from './lines.ts';
import { breakWithin, type Span } from './sentences.ts';
import type { Pos } from './pos.ts';
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
export function nameFits(text: string, start: number, end: number, tokens: Tokens): boolean {
  if (word(text, start) && word(text, start - 1)) return false;
  if (word(text, end - 1) && word(text, end)) return false;
  const before = text[start - 1];
  const after = text[end];
  if (before !== '.' && before !== '-' && after !== '.' && after !== '-') return true;
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
 * longest name wins at one place: "Acme Cloud" over "Acme"). A name that is
 * also something else ("Monday", "Notion", "you", "HP") counts only where its
 * surroundings say it means the brand (reading.ts). `hits`: the book's hits
 * in the text with exclusion phrases applied (exclusions.ts).
 */
export function findMentions(
  text: string,
  book: BrandBook,
  hits: readonly RawHit[] = allowedHits(text, book),
  model: ReaderModel = READER_MODEL,
): Mention[] {
  const chosen = candidates(text, book, hits);
  const kept = chosen.some((m) => m.pattern >= 0) ? readAmbiguous(text, book, chosen, model) : chosen;
  return kept.map(({ entity, start, end, kind }) => ({ entity, start, end, kind }));
}

/** Names and domains that fit where they stand, without overlaps; ambiguous ones not yet read. */
function candidates(text: string, book: BrandBook, hits: readonly RawHit[]): Candidate[] {
  if (hits.length === 0) return [];
  const urls = findUrlSpans(text);
  const { entityOf, flagsOf } = packedInfo(book);
  const accepted: Candidate[] = [];
  // The text's dotted tokens, walked once for all its names (made on first use).
  let tokens: Tokens | null = null;
  for (const h of hits) {
    const flags = flagsOf[h.pattern] ?? 0;
    const entity = entityOf[h.pattern] ?? 0;
    if ((flags & DOMAIN) !== 0) {
      if (domainFits(text, h.start, h.end, urls))
        accepted.push({ entity, start: h.start, end: h.end, kind: 'domain', pattern: -1 });
      continue;
    }
    if (spanAt(urls, h.start) !== null) continue;
    if (!nameFits(text, h.start, h.end, (tokens ??= tokensOf(text)))) continue;
    // "Sir James Dyson", "Michael Dell": a first name before a name makes it a person's, ambiguous or not
    // (reading.ts weighs it for ambiguous names among their other cues).
    if ((flags & CASED) === 0 && afterFirstName(text, h.start)) continue;
    accepted.push({
      entity,
      start: h.start,
      end: h.end,
      kind: 'name',
      pattern: (flags & CASED) !== 0 ? h.pattern : -1,
    });
  }
  sortByStartLongestFirst(accepted);
  const chosen: Candidate[] = [];
  let reach = 0;
  for (const m of accepted) {
    if (m.start < reach) continue;
    chosen.push(m);
    reach = m.end;
  }
  return chosen;
}

function upperAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c >= 65 && c <= 90) || (c > 127 && /\p{Lu}/u.test(text[i] ?? ''));
}

function lowerAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return (c >= 97 && c <= 122) || (c > 127 && /\p{Ll}/u.test(text[i] ?? ''));
}

/** Whether a capitalised first name ("James", not "Will" or "Mark", which are everyday words too) stands right before `start`. */
function afterFirstName(text: string, start: number): boolean {
  if (text.charCodeAt(start - 1) !== 32) return false;
  let i = start - 2;
  // First names are short: looking back 16 letters at most keeps this constant per name.
  while (i >= 0 && start - 2 - i < 16 && lowerAt(text, i)) i--;
  if (i < 0 || i === start - 2 || !upperAt(text, i) || word(text, i - 1)) return false;
  const first = text.slice(i, start - 1).toLowerCase();
  return isGivenName(first) && !isEverydayWord(first);
}

/** `pattern` is the book's pattern for an ambiguous name, -1 for a name or domain that needs no reading. */
type Candidate = Mention & { pattern: number };

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

/** What may stand between two names of one list: "Asana, Monday", "Monday or Trello", "**Asana** vs **Monday**". */
const LIST_GAP = /^[\s*_`"'()]*(?:,|\/|&|\+|\band\b|\bor\b|\bvs\.?|\bversus\b|\||,\s*(?:and|or)\b)[\s*_`"'()]*$/i;

function beside(text: string, a: Candidate | undefined, b: Candidate | undefined): boolean {
  if (a === undefined || b === undefined || a.entity === b.entity) return false;
  const gap = text.slice(a.end, b.start);
  return gap.length <= 16 && !gap.includes('\n') && LIST_GAP.test(gap);
}

/** One ambiguous occurrence and how it was read. */
export interface AmbiguousReading {
  entity: number;
  start: number;
  end: number;
  means: boolean;
  score: number;
  cues: string[];
}

/**
 * Decides each ambiguous occurrence from its context (reading.ts): the sum of the model's weights of its features
 * above zero means the entity.
 */
function readAmbiguous(text: string, book: BrandBook, chosen: readonly Candidate[], model: ReaderModel): Candidate[] {
  const readings = readingsOf(text, book, chosen, false, model);
  return chosen.filter((_, i) => readings[i]?.means ?? true);
}

function readingsOf(
  text: string,
  book: BrandBook,
  chosen: readonly Candidate[],
  explain: boolean,
  model: ReaderModel,
): (AmbiguousReading | null)[] {
  const scores = new Float64Array(chosen.length).fill(model.bias);
  const cues: { w: number; why: string }[][] = [];
  const sinks = (i: number): FeatureSink => {
    // Both passes add to one list of cues an occurrence.
    const mine = explain ? (cues[i] ??= []) : [];
    return (id, why) => {
      const w = model.weights[id] ?? 0;
      scores[i] = (scores[i] ?? 0) + w;
      if (explain && w !== 0) mine.push({ w, why });
    };
  };
  walkAmbiguous(text, book, chosen, sinks, (i, d) => explain || couldTip(scores[i] ?? 0, d, model));
  return chosen.map((m, i) => {
    if (m.pattern < 0) return null;
    const score = scores[i] ?? 0;
    const why = (cues[i] ?? []).sort((x, y) => Math.abs(y.w) - Math.abs(x.w)).map((c) => c.why);
    return { entity: m.entity, start: m.start, end: m.end, means: score > 0, score, cues: why };
  });
}

/**
 * Gives every feature of each ambiguous occurrence of `chosen` to `sinkFor(i)`, in two passes: the cheap features of
 * every occurrence first, then what depends on the others (another occurrence of the entity marked as a name) and
 * the costly ones, those only where `deferred(i)` still wants them.
 */
function walkAmbiguous(
  text: string,
  book: BrandBook,
  chosen: readonly Candidate[],
  sinkFor: (i: number) => FeatureSink,
  deferred: (i: number, d: Deferred) => boolean,
): void {
  // Entities are small indices into book.entities: flags and counts in arrays, not Sets.
  const entities = book.entities.length;
  const plain = new Uint8Array(entities);
  const heads = new Uint8Array(entities);
  const lineStartOf = lineStarts(text);
  let plainEntities = 0;
  let headEntities = 0;
  for (const m of chosen) {
    if (m.pattern < 0 && plain[m.entity] === 0) {
      plain[m.entity] = 1;
      plainEntities++;
    }
    if (heads[m.entity] === 0 && headsItem(text, m.start, lineStartOf)) {
      heads[m.entity] = 1;
      headEntities++;
    }
  }
  const inline = inlineHeads(text);
  // Each occurrence's sentence, found once for both passes and only where a feature asks for it.
  const sentences: (Span | undefined)[] = [];
  let current = 0;
  // One evidence object for the answer, its fields set for each occurrence in turn: the features keep none of it.
  const evidence: AnswerEvidence = {
    namedElsewhere: false,
    brandInSentence: false,
    brandBeside: false,
    afterBrand: false,
    inPrompt: false,
    tagger: { left: TAGGINGS_PER_ANSWER, seen: new Map<number, Pos | null>() },
    sentenceOf: () => (sentences[current] ??= sentenceNear(text, chosen[current]?.start ?? 0)),
    italics: text.includes('*') || text.includes('_'),
    lineStartOf,
    listHead: false,
    otherBrandPlain: false,
    otherBrandHeads: false,
    topicNear: false,
  };
  const occurrenceOf = (m: Candidate): Occurrence => {
    const info = book.info[m.pattern];
    return {
      text,
      start: m.start,
      end: m.end,
      sense: info?.sense ?? 'word',
      casings: info?.casings ?? [],
      lowerWord: info?.lowerWord ?? false,
      wordCount: info?.wordCount ?? 0,
      mostlyName: info?.mostlyName ?? false,
    };
  };
  const pending: (Deferred | null)[] = [];
  const inSentence = new Uint8Array(chosen.length);
  const strong = new Uint16Array(entities);
  chosen.forEach((m, i) => {
    if (m.pattern < 0) {
      pending.push(null);
      return;
    }
    const prev = chosen[i - 1];
    current = i;
    evidence.namedElsewhere = plain[m.entity] === 1;
    evidence.brandInSentence = brandInSentence(text, chosen, i);
    inSentence[i] = evidence.brandInSentence ? 1 : 0;
    evidence.brandBeside = beside(text, prev, m) || beside(text, m, chosen[i + 1]);
    evidence.afterBrand = prev !== undefined && m.start - prev.end === 1 && text.charCodeAt(prev.end) === 32;
    evidence.listHead = inline.has(m.start);
    evidence.otherBrandPlain = plainEntities - (plain[m.entity] ?? 0) > 0;
    evidence.otherBrandHeads = headEntities - (heads[m.entity] ?? 0) > 0;
    evidence.topicNear = topicNear(text, book, chosen, m.start, m.end);
    const d = eagerFeatures(occurrenceOf(m), evidence, sinkFor(i));
    if (d.strong) strong[m.entity] = (strong[m.entity] ?? 0) + 1;
    pending.push(d);
  });
  pending.forEach((d, i) => {
    const m = chosen[i];
    if (d === null || m === undefined) return;
    const sink = sinkFor(i);
    // Another occurrence of the entity the writer marks as a name (bold, a list's head, its own casing).
    if ((strong[m.entity] ?? 0) - (d.strong ? 1 : 0) > 0)
      sink('marked-elsewhere', 'the answer marks it as a name elsewhere');
    if (!deferred(i, d)) return;
    current = i;
    evidence.brandInSentence = inSentence[i] === 1;
    deferredFeatures(occurrenceOf(m), evidence, d, sink);
  });
}

/** Every feature of every ambiguous occurrence of `text`, the costly ones too: what the model is trained on. */
export function ambiguousFeatures(
  text: string,
  book: BrandBook,
): { entity: number; start: number; end: number; features: string[] }[] {
  const chosen = candidates(text, book, allowedHits(text, book));
  const features: string[][] = chosen.map(() => []);
  walkAmbiguous(
    text,
    book,
    chosen,
    (i) => (id) => features[i]?.push(id),
    () => true,
  );
  return chosen.flatMap((m, i) =>
    m.pattern < 0 ? [] : [{ entity: m.entity, start: m.start, end: m.end, features: features[i] ?? [] }],
  );
}

/**
 * Whether another tracked brand is named in the sentence of chosen[i] (within REACH_SENTENCE of it, as
 * sentenceNear looks): the nearest other brand on each side, with no sentence break between them.
 */
function brandInSentence(text: string, chosen: readonly Candidate[], i: number): boolean {
  const m = chosen[i];
  if (m === undefined) return false;
  for (let j = i - 1; j >= 0; j--) {
    const p = chosen[j];
    if (p === undefined || p.end <= m.start - REACH_SENTENCE) break;
    if (p.entity === m.entity) continue;
    if (!breakWithin(text, p.end - 1, m.start, true)) return true;
    break;
  }
  for (let j = i + 1; j < chosen.length; j++) {
    const n = chosen[j];
    if (n === undefined || n.start >= m.start + REACH_SENTENCE) break;
    if (n.entity === m.entity) continue;
    return !breakWithin(text, m.start, n.start, false);
  }
  return false;
}

/** How far sentenceNear looks each way (reading.ts REACH): a brand farther away is not in the sentence. */
const REACH_SENTENCE = 400;

/** Every ambiguous occurrence in `text` and its reading, for explanations and the evaluation. */
export function explainAmbiguous(text: string, book: BrandBook, model: ReaderModel = READER_MODEL): AmbiguousReading[] {
  const chosen = candidates(text, book, allowedHits(text, book));
  return readingsOf(text, book, chosen, true, model).filter((r): r is AmbiguousReading => r !== null);
}

/** Sentences one answer may have tagged (reading.ts): real answers need a few; a hostile one gets no more. */
const TAGGINGS_PER_ANSWER = 16;

/** Starts of the heads of items of lists written on one line ("Top options: 1. Notion 2. Foo"). */
function inlineHeads(text: string): Set<number> {
  return new Set(
    findInlineItems(text).map(
      (item) => item.bodyStart + (LEAD_MARKUP.exec(text.slice(item.bodyStart, item.bodyStart + 4))?.[0].length ?? 0),
    ),
  );
}

const LEAD_MARKUP = /^[*_[`"'(]+/;
