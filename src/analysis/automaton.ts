import { FOLD } from './fold.ts';

/**
 * Aho-Corasick automaton over folded UTF-16 code units, compiled to a dense
 * transition table: one table read per character whatever the number of
 * names, so an answer is scanned once. modern-ahocorasick was measured first
 * (docs/analysis.md): its grapheme segmentation alone costs more than the
 * whole per-answer budget, so the scan is done here and the library is kept
 * only as a comparison in bench/analysis.ts.
 *
 * Glossary: a state is a trie node; `delta[state * width + symbol]` is the
 * next state; `symbol` is the index of a folded unit in the alphabet of the
 * patterns (0 = a unit no pattern contains); `out[state]` is the pattern that
 * ends at that state; `link[state]` is the nearest shorter suffix state that
 * also ends a pattern.
 */
export interface Automaton {
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

/** `patterns` must already be folded (see fold.ts) and non-empty. */
export function buildAutomaton(patterns: readonly string[]): Automaton {
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

  const children: Map<number, number>[] = [new Map()];
  const ends: number[] = [-1];
  for (let id = 0; id < patterns.length; id++) {
    const p = patterns[id] ?? '';
    let state = 0;
    for (let i = 0; i < p.length; i++) {
      const sym = symbols.get(p.charCodeAt(i)) ?? 0;
      const node = children[state] ?? new Map<number, number>();
      let next = node.get(sym);
      if (next === undefined) {
        next = children.length;
        node.set(sym, next);
        children.push(new Map());
        ends.push(-1);
      }
      state = next;
    }
    if (ends[state] === -1) ends[state] = id;
  }

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
  const lengths = Int32Array.from(patterns, (p) => p.length);
  return { symbolOf, width, delta, out, link, lengths };
}

/** Every occurrence of every pattern, overlaps included, in end order. */
export function scan(a: Automaton, text: string): RawHit[] {
  const hits: RawHit[] = [];
  const { symbolOf, width, delta, out, link, lengths } = a;
  const n = text.length;
  let state = 0;
  // Non-null assertions: every index below is in range by construction, and
  // this loop runs once per character of every answer.
  for (let i = 0; i < n; i++) {
    state = delta[state * width + symbolOf[text.charCodeAt(i)]!]!;
    let t = out[state]! >= 0 ? state : link[state]!;
    while (t >= 0) {
      const pattern = out[t]!;
      hits.push({ pattern, start: i + 1 - lengths[pattern]!, end: i + 1 });
      t = link[t]!;
    }
  }
  return hits;
}
