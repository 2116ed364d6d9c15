import { Buffer } from 'node:buffer';
import { FOLD } from './fold.ts';

/**
 * Aho-Corasick automaton over folded UTF-16 code units, compiled to a dense
 * transition table: one table read per character whatever the number of
 * names, so an answer is scanned once. modern-ahocorasick was measured first
 * (docs/analysis.md): its grapheme segmentation alone costs more than the
 * whole per-answer budget, so the scan is done here and the library is kept
 * only as a comparison in bench/analysis.ts.
 *
 * Glossary: a state is a trie node; `symbol` is the index of a folded unit
 * in the alphabet of the patterns (0 = a unit no pattern contains); `out[state]`
 * is the pattern that ends at that state; `link[state]` is the nearest shorter
 * suffix state that also ends a pattern. `delta[state * width + symbol]` is
 * the next state's row (`next * width`, so the scan does no multiplication),
 * bit-inverted (negative) when some pattern ends at the next state: the scan
 * then needs one table read per character and looks at `out`/`link` only
 * where a name ends.
 */
export interface Automaton {
  readonly kind: 'dense';
  readonly symbolOf: Uint16Array;
  readonly width: number;
  readonly delta: Int32Array;
  readonly out: Int32Array;
  readonly link: Int32Array;
  readonly lengths: Int32Array;
}

export interface RawHit {
  pattern: number;
  start: number;
  end: number;
}

/**
 * The same automaton with a map of children per state, for a book whose dense
 * table would pass DENSE_MAX_CELLS: names are a tenant's input, and hundreds
 * of thousands of characters of names over thousands of distinct characters
 * (CJK) would make a dense table of gigabytes. Slower per character (it
 * follows failure links), never larger than the names.
 */
export interface SparseAutomaton {
  readonly kind: 'sparse';
  readonly symbolOf: Uint16Array;
  readonly children: readonly Map<number, number>[];
  readonly fail: Int32Array;
  readonly out: Int32Array;
  readonly link: Int32Array;
  readonly lengths: Int32Array;
}

/** 8M cells of 4 bytes: 32 MB. Real books are far below (1,554 names: about 5,000 states of 40 symbols). */
export const DENSE_MAX_CELLS = 8_000_000;

/** `patterns` must already be folded (see fold.ts) and non-empty. */
export function buildAutomaton(patterns: readonly string[], maxCells = DENSE_MAX_CELLS): Automaton | SparseAutomaton {
  const symbols = new Map<number, number>();
  for (const p of patterns) {
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      if (!symbols.has(c)) symbols.set(c, symbols.size + 1);
    }
  }
  const width = symbols.size + 1;
  const symbolOf = new Uint16Array(65536);
  for (let raw = 0; raw < 65536; raw++) symbolOf[raw] = symbols.get(FOLD[raw] ?? raw) ?? 0;

  const trie: Map<number, number>[] = [new Map()];
  const trieEnds: number[] = [-1];
  for (let id = 0; id < patterns.length; id++) {
    const p = patterns[id] ?? '';
    let state = 0;
    for (let i = 0; i < p.length; i++) {
      const sym = symbols.get(p.charCodeAt(i)) ?? 0;
      const node = trie[state] ?? new Map<number, number>();
      let next = node.get(sym);
      if (next === undefined) {
        next = trie.length;
        node.set(sym, next);
        trie.push(new Map());
        trieEnds.push(-1);
      }
      state = next;
    }
    if (trieEnds[state] === -1) trieEnds[state] = id;
  }
  const { children, ends } = breadthFirst(trie, trieEnds);
  if (children.length * width > maxCells) return sparse(patterns, symbolOf, children, ends);

  const count = children.length;
  const delta = new Int32Array(count * width);
  const fail = new Int32Array(count);
  const out = Int32Array.from(ends);
  const link = new Int32Array(count).fill(-1);
  const queue: number[] = [];
  for (const [sym, child] of children[0] ?? []) {
    delta[sym] = child;
    queue.push(child);
  }
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] ?? 0;
    const f = fail[state] ?? 0;
    link[state] = (out[f] ?? -1) >= 0 ? f : (link[f] ?? -1);
    const row = state * width;
    const failRow = f * width;
    for (let sym = 0; sym < width; sym++) delta[row + sym] = delta[failRow + sym] ?? 0;
    for (const [sym, child] of children[state] ?? []) {
      fail[child] = delta[failRow + sym] ?? 0;
      delta[row + sym] = child;
      queue.push(child);
    }
  }
  encodeRows(delta, width, out, link);
  const lengths = Int32Array.from(patterns, (p) => p.length);
  return { kind: 'dense', symbolOf, width, delta, out, link, lengths };
}

function sparse(
  patterns: readonly string[],
  symbolOf: Uint16Array,
  children: Map<number, number>[],
  ends: number[],
): SparseAutomaton {
  const count = children.length;
  const fail = new Int32Array(count);
  const out = Int32Array.from(ends);
  const link = new Int32Array(count).fill(-1);
  const queue: number[] = [...(children[0]?.values() ?? [])];
  for (let head = 0; head < queue.length; head++) {
    const state = queue[head] ?? 0;
    const f = fail[state] ?? 0;
    link[state] = (out[f] ?? -1) >= 0 ? f : (link[f] ?? -1);
    for (const [sym, child] of children[state] ?? []) {
      let g = f;
      let to = state === 0 ? undefined : children[g]?.get(sym);
      while (to === undefined && g !== 0) {
        g = fail[g] ?? 0;
        to = children[g]?.get(sym);
      }
      fail[child] = state === 0 || to === undefined || to === child ? 0 : to;
      queue.push(child);
    }
  }
  return { kind: 'sparse', symbolOf, children, fail, out, link, lengths: Int32Array.from(patterns, (p) => p.length) };
}

function scanSparse(a: SparseAutomaton, text: string): RawHit[] {
  const { symbolOf, children, fail, out, link, lengths } = a;
  const hits: RawHit[] = [];
  let state = 0;
  for (let i = 0; i < text.length; i++) {
    const sym = symbolOf[text.charCodeAt(i)] ?? 0;
    let next = children[state]?.get(sym);
    while (next === undefined && state !== 0) {
      state = fail[state] ?? 0;
      next = children[state]?.get(sym);
    }
    state = next ?? 0;
    let t = (out[state] ?? -1) >= 0 ? state : (link[state] ?? -1);
    while (t >= 0) {
      const pattern = out[t] ?? 0;
      hits.push({ pattern, start: i + 1 - (lengths[pattern] ?? 0), end: i + 1 });
      t = link[t] ?? -1;
    }
  }
  return hits;
}

/**
 * The same trie with states numbered level by level. Text mostly keeps the
 * automaton near the root, so this puts the rows it reads most in a few
 * adjacent cache lines instead of scattered across the table. Numbering does
 * not change which patterns are found, nor their order.
 */
function breadthFirst(
  trie: readonly Map<number, number>[],
  trieEnds: readonly number[],
): { children: Map<number, number>[]; ends: number[] } {
  const order = [0];
  for (let head = 0; head < order.length; head++) {
    for (const child of trie[order[head] ?? 0]?.values() ?? []) order.push(child);
  }
  const newId = new Int32Array(trie.length);
  order.forEach((state, index) => (newId[state] = index));
  const children = order.map((state) => {
    const renamed = new Map<number, number>();
    for (const [sym, child] of trie[state] ?? []) renamed.set(sym, newId[child] ?? 0);
    return renamed;
  });
  return { children, ends: order.map((state) => trieEnds[state] ?? -1) };
}

/**
 * Rewrites each transition from a state number to that state's row offset,
 * inverted when a pattern ends there (see the glossary). Rows stay within
 * int32 for any book that fits in memory: 1,554 names make about 5,000
 * states of 40 symbols.
 */
function encodeRows(delta: Int32Array, width: number, out: Int32Array, link: Int32Array): void {
  for (let i = 0; i < delta.length; i++) {
    const next = delta[i]!;
    const row = next * width;
    delta[i] = out[next]! >= 0 || link[next]! >= 0 ? ~row : row;
  }
}

/**
 * The text's UTF-16 code units, copied by one native call into a buffer
 * reused from answer to answer. Reading them from a typed array makes the
 * scan loop about twice as fast as calling charCodeAt per character, whose
 * cost depends on how V8 happens to hold the string (a slice of another
 * string, as in the benchmark, is slower still). The copy is exact: Node's
 * utf16le writes code units as they are, lone surrogates included. On a
 * big-endian machine the units are copied one by one instead.
 */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
/** Scratch space allocated once (64 KB and 256 KB); a longer answer (rare) gets its own arrays. */
const SCRATCH_UNITS = 32_768;
const SCRATCH = new Uint16Array(SCRATCH_UNITS);
const SCRATCH_BYTES = Buffer.from(SCRATCH.buffer);
const SCRATCH_ENDS = new Int32Array(2 * SCRATCH_UNITS);

function codeUnits(text: string): Uint16Array {
  if (!LITTLE_ENDIAN || text.length > SCRATCH_UNITS) return codeUnitsCopied(text);
  SCRATCH_BYTES.write(text, 0, 'utf16le');
  return SCRATCH;
}

function codeUnitsCopied(text: string): Uint16Array {
  const units = new Uint16Array(text.length);
  for (let i = 0; i < text.length; i++) units[i] = text.charCodeAt(i);
  return units;
}

/**
 * Every occurrence of every pattern, overlaps included, in end order. Two
 * passes: the walk only notes (offset, row) where some pattern ends, with no
 * allocation in the loop so V8 keeps the tables in registers; the hits are
 * then read from `out`/`link` at those few places.
 */
export function scan(a: Automaton | SparseAutomaton, text: string): RawHit[] {
  if (a.kind === 'sparse') return scanSparse(a, text);
  const { symbolOf, width, delta, out, link, lengths } = a;
  const n = text.length;
  const code = codeUnits(text);
  const ends = n <= SCRATCH_UNITS ? SCRATCH_ENDS : new Int32Array(2 * n);
  let row = 0;
  let m = 0;
  // Non-null assertions: every index below is in range by construction, and
  // this loop runs once per character of every answer.
  for (let i = 0; i < n; i++) {
    const next = delta[row + symbolOf[code[i]!]!]!;
    if (next >= 0) {
      row = next;
      continue;
    }
    row = ~next;
    ends[m++] = i;
    ends[m++] = row;
  }
  const hits: RawHit[] = [];
  for (let k = 0; k < m; k += 2) {
    const end = ends[k]! + 1;
    const state = ends[k + 1]! / width;
    let t = out[state]! >= 0 ? state : link[state]!;
    while (t >= 0) {
      const pattern = out[t]!;
      hits.push({ pattern, start: end - lengths[pattern]!, end });
      t = link[t]!;
    }
  }
  return hits;
}
