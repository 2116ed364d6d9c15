import { buildAutomaton, scan, type RawHit } from './automaton.ts';
import { normaliseDomain } from './domains.ts';
import { fold, stripAccents } from './fold.ts';
import {
  EVERYDAY_MIN_COUNT,
  isEverydayPhrase,
  isMostlyName,
  otherSense,
  rarestWordCount,
  type OtherSense,
} from './lexicon.ts';
import { topicWordsOf } from './topic.ts';

/**
 * Glossary. Entity: the brand (index 0) or one tracked competitor. Pattern:
 * one folded string that names an entity, either a name (brand name, brand
 * term, competitor name or alias) or a domain. Casings: for an ambiguous name
 * (an everyday word such as "Notion", or one or two characters such as "HP"),
 * the exact spellings the book gives; text must use one of them. Exclusion:
 * a phrase of an entity that never names it ("Amazon rainforest" for
 * Amazon), compiled into the same automaton as a pattern of kind `exclude`.
 */
export interface BrandBookInput {
  name: string;
  brandTerms: string[];
  domain: string;
  /** Phrases in which the brand's names never count ("Amazon rainforest"). */
  excludePhrases?: string[];
  competitors: { id: number; name: string; aliases: string[]; domain: string | null; excludePhrases?: string[] }[];
}

export interface Entity {
  kind: 'brand' | 'competitor';
  competitorId: number | null;
  name: string;
}

export interface PatternInfo {
  /** The entity it names; for kind `exclude`, the first entity that excludes it. */
  entity: number;
  kind: 'name' | 'domain' | 'exclude';
  /** for an ambiguous name, the spellings the book gives it; null for a plain name */
  casings: readonly string[] | null;
  /** what else an ambiguous name names (lexicon.ts); null for a plain name */
  sense: OtherSense | null;
  /** an ambiguous name whose lower-case form is an everyday word ("chase", "apple"; not "monday") */
  lowerWord: boolean;
  /** for an ambiguous name, how common a word it is (lexicon.ts rarestWordCount); 0 for a plain name */
  wordCount: number;
  /** an ambiguous one-word name the frequency list mostly writes capitalised ("Harvey", "Vail") */
  mostlyName: boolean;
  /** Entities for which this phrase is an exclusion (a name may also be another entity's exclusion); absent when none. */
  excludes?: readonly number[];
}

export type Scanner = (text: string) => RawHit[];

export interface BrandBook {
  /** stable across processes: a hash of the canonical input, to store with facts */
  readonly key: string;
  /** what it was compiled from: enough to compile it again elsewhere (an analysis thread) */
  readonly input: BrandBookInput;
  readonly entities: readonly Entity[];
  readonly domain: string | null;
  readonly competitorDomains: readonly { id: number; domain: string }[];
  /** competitor domain -> competitor id */
  readonly domainOwners: ReadonlyMap<string, number>;
  /** folded pattern strings, index = pattern id */
  readonly patterns: readonly string[];
  /** each pattern as the book first spells it (cleaned, not folded), index = pattern id */
  readonly spellings: readonly string[];
  readonly info: readonly PatternInfo[];
  /** whether any pattern is an exclusion phrase (the answer's hits then go through exclusions.ts) */
  readonly exclusions: boolean;
  /** folded names and domains of the book, to keep them out of suggestions */
  readonly tracked: ReadonlySet<string>;
  /** the words of the book's names of several words (topic.ts), as topicKey writes them */
  readonly topicWords: ReadonlySet<string>;
  readonly scan: Scanner;
}

const CACHE_SIZE = 64;
const cache = new Map<string, BrandBook>();

function clean(name: string): string {
  return name.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** A name as the book compares it (spaces made one, trimmed, folded): how corrections and stored readings name a pattern. */
export function foldName(name: string): string {
  return fold(clean(name));
}

function canonical(input: BrandBookInput): string {
  const sortedUnique = (xs: string[]): string[] => [...new Set(xs.map(clean).filter((x) => x !== ''))].sort();
  // Exclusions join the key only when given, so a book without any keeps the key it had before they existed.
  const excluded = (xs: string[] | undefined): [string[]] | [] =>
    xs !== undefined && sortedUnique(xs).length > 0 ? [sortedUnique(xs)] : [];
  return JSON.stringify([
    clean(input.name),
    sortedUnique(input.brandTerms),
    input.domain.trim().toLowerCase(),
    [...input.competitors]
      .sort((a, b) => a.id - b.id)
      .map((c) => [
        c.id,
        clean(c.name),
        sortedUnique(c.aliases),
        c.domain?.trim().toLowerCase() ?? null,
        ...excluded(c.excludePhrases),
      ]),
    ...excluded(input.excludePhrases),
  ]);
}

/** FNV-1a, 52 bits: short, stable and fast; not for security. */
function hash(text: string): string {
  let h = 0xcbf29ce484222325n & 0xfffffffffffffn;
  for (let i = 0; i < text.length; i++) {
    h ^= BigInt(text.charCodeAt(i));
    h = (h * 0x100000001b3n) & 0xfffffffffffffn;
  }
  return h.toString(16).padStart(13, '0');
}

/**
 * Compiles a brand book, cached by its canonical input: the same names give
 * the same book, any change of names, terms, domains or competitors gives a
 * new one (the old one ages out of a small LRU).
 */
export function compileBrandBook(input: BrandBookInput): BrandBook {
  const key = canonical(input);
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const book = compileBrandBookWith(input, (patterns) => {
    const automaton = patterns.length === 0 ? null : buildAutomaton(patterns);
    return automaton === null ? () => [] : (text) => scan(automaton, text);
  });
  cache.set(key, book);
  if (cache.size > CACHE_SIZE) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  return book;
}

/**
 * Compilation with a chosen scanner, uncached. Exists so the benchmark can
 * run the same analysis with a naive scanner; product code calls
 * compileBrandBook.
 */
export function compileBrandBookWith(
  input: BrandBookInput,
  makeScanner: (patterns: readonly string[]) => Scanner,
): BrandBook {
  const entities: Entity[] = [{ kind: 'brand', competitorId: null, name: clean(input.name) }];
  const domain = normaliseDomain(input.domain);
  const competitorDomains: { id: number; domain: string }[] = [];
  const patterns: string[] = [];
  const spellings: string[] = [];
  const info: PatternInfo[] = [];
  const byKey = new Map<string, number>();
  const domainKeys = new Set<string>();

  const add = (entity: number, raw: string, kind: 'name' | 'domain'): void => {
    const text = clean(raw);
    const folded = fold(text);
    if (folded.replace(/[^\p{L}\p{N}]/gu, '') === '') return;
    const existing = byKey.get(folded);
    if (existing !== undefined) {
      const prev = info[existing];
      // First owner wins: the brand before competitors, competitors by id.
      if (prev === undefined || prev.entity !== entity || prev.casings === null) return;
      const casing = stripAccents(text);
      if (!prev.casings.includes(casing)) info[existing] = { ...prev, casings: [...prev.casings, casing] };
      return;
    }
    const isDomain = kind === 'domain' || domainKeys.has(folded);
    byKey.set(folded, patterns.length);
    patterns.push(folded);
    spellings.push(text);
    const sense = isDomain ? null : otherSense(folded);
    info.push({
      entity,
      kind: isDomain ? 'domain' : 'name',
      casings: sense !== null ? [stripAccents(text)] : null,
      sense,
      lowerWord: sense !== null && isEverydayPhrase(folded),
      wordCount: sense !== null ? rarestWordCount(folded) : 0,
      mostlyName: sense !== null && isMostlyName(folded) && rarestWordCount(folded) >= EVERYDAY_MIN_COUNT,
    });
  };

  // After every name, so a phrase that is also a name keeps that name's pattern and only gains `excludes`.
  let exclusions = false;
  const exclude = (entity: number, raw: string): void => {
    const text = clean(raw);
    const folded = fold(text);
    if (folded.replace(/[^\p{L}\p{N}]/gu, '') === '') return;
    exclusions = true;
    const existing = byKey.get(folded);
    if (existing === undefined) {
      byKey.set(folded, patterns.length);
      patterns.push(folded);
      spellings.push(text);
      info.push({
        entity,
        kind: 'exclude',
        casings: null,
        sense: null,
        lowerWord: false,
        wordCount: 0,
        mostlyName: false,
        excludes: [entity],
      });
      return;
    }
    const prev = info[existing];
    if (prev !== undefined && !prev.excludes?.includes(entity))
      info[existing] = { ...prev, excludes: [...(prev.excludes ?? []), entity] };
  };

  const sorted = [...input.competitors].sort((a, b) => a.id - b.id);
  if (domain !== null) domainKeys.add(domain);
  const competitorDomainOf = sorted.map((c) => (c.domain === null ? null : normaliseDomain(c.domain)));
  for (const d of competitorDomainOf) if (d !== null) domainKeys.add(d);

  if (domain !== null) add(0, domain, 'domain');
  add(0, input.name, 'name');
  for (const term of input.brandTerms) add(0, term, 'name');
  sorted.forEach((c, i) => {
    const entity = entities.length;
    entities.push({ kind: 'competitor', competitorId: c.id, name: clean(c.name) });
    const d = competitorDomainOf[i] ?? null;
    if (d !== null && d !== domain && !competitorDomains.some((x) => x.domain === d)) {
      competitorDomains.push({ id: c.id, domain: d });
      add(entity, d, 'domain');
    }
    add(entity, c.name, 'name');
    for (const alias of c.aliases) add(entity, alias, 'name');
  });
  for (const phrase of input.excludePhrases ?? []) exclude(0, phrase);
  sorted.forEach((c, i) => {
    for (const phrase of c.excludePhrases ?? []) exclude(i + 1, phrase);
  });

  return {
    key: hash(canonical(input)),
    input,
    entities,
    domain,
    competitorDomains,
    domainOwners: new Map(competitorDomains.map((d) => [d.domain, d.id])),
    patterns,
    spellings,
    info,
    exclusions,
    tracked: new Set(patterns.filter((_, i) => info[i]?.kind !== 'exclude')),
    topicWords: topicWordsOf([
      input.name,
      ...input.brandTerms,
      ...input.competitors.flatMap((c) => [c.name, ...c.aliases]),
    ]),
    scan: makeScanner(patterns),
  };
}
