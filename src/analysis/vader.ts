import { lexicon as BASE } from 'vader-sentiment/src/vader_lexicon.js';

/**
 * The VADER rules (Hutto & Gilbert 2014, reference implementation 3.3.2)
 * over the VADER lexicon shipped by the vader-sentiment package. Ported here
 * because that package's scorer costs about 0.3 ms a sentence (it rebuilds a
 * word-by-punctuation table on every call) and keeps its lexicon private, so
 * it cannot take product words. Differences from the reference, all on
 * purpose: tokens lose all surrounding punctuation (so "(reliable)" counts),
 * and "however" weighs clauses like "but"; a leading "although"/"though"/
 * "while"/"whereas" clause weighs half, the clause after its comma 1.5 times;
 * negations and boosters reach back only within their sentence ("Nope. I was
 * wrong." does not negate "wrong"), and a repeated "no" ("no no no") is not
 * negated by the one before it. `adjust` lets rules outside VADER's decide
 * which words evaluate (evaluative.ts).
 */
const B_INCR = 0.293;
const B_DECR = -0.293;
const C_INCR = 0.733;
const N_SCALAR = -0.74;

const NEGATE = new Set([
  'aint',
  'arent',
  'cannot',
  'cant',
  'couldnt',
  'darent',
  'didnt',
  'doesnt',
  "ain't",
  "aren't",
  "can't",
  "couldn't",
  "daren't",
  "didn't",
  "doesn't",
  'dont',
  'hadnt',
  'hasnt',
  'havent',
  'isnt',
  'mightnt',
  'mustnt',
  'neither',
  "don't",
  "hadn't",
  "hasn't",
  "haven't",
  "isn't",
  "mightn't",
  "mustn't",
  'neednt',
  "needn't",
  'never',
  'none',
  'nope',
  'nor',
  'not',
  'nothing',
  'nowhere',
  'oughtnt',
  'shant',
  'shouldnt',
  'uhuh',
  'wasnt',
  'werent',
  "oughtn't",
  "shan't",
  "shouldn't",
  'uh-uh',
  "wasn't",
  "weren't",
  'without',
  'wont',
  'wouldnt',
  "won't",
  "wouldn't",
  'rarely',
  'seldom',
  'despite',
]);

const BOOSTERS = new Map<string, number>([
  ...[
    'absolutely',
    'amazingly',
    'awfully',
    'completely',
    'considerable',
    'considerably',
    'decidedly',
    'deeply',
    'effing',
    'enormous',
    'enormously',
    'entirely',
    'especially',
    'exceptional',
    'exceptionally',
    'extreme',
    'extremely',
    'fabulously',
    'flipping',
    'flippin',
    'frackin',
    'fracking',
    'fricking',
    'frickin',
    'frigging',
    'friggin',
    'fully',
    'fuckin',
    'fucking',
    'fuggin',
    'fugging',
    'greatly',
    'hella',
    'highly',
    'hugely',
    'incredible',
    'incredibly',
    'intensely',
    'major',
    'majorly',
    'more',
    'most',
    'particularly',
    'purely',
    'quite',
    'really',
    'remarkably',
    'so',
    'substantially',
    'thoroughly',
    'total',
    'totally',
    'tremendous',
    'tremendously',
    'uber',
    'unbelievably',
    'unusually',
    'utter',
    'utterly',
    'very',
  ].map((w) => [w, B_INCR] as const),
  ...[
    'almost',
    'barely',
    'hardly',
    'just enough',
    'kind of',
    'kinda',
    'kindof',
    'kind-of',
    'less',
    'little',
    'marginal',
    'marginally',
    'occasional',
    'occasionally',
    'partly',
    'scarce',
    'scarcely',
    'slight',
    'slightly',
    'somewhat',
    'sort of',
    'sorta',
    'sortof',
    'sort-of',
  ].map((w) => [w, B_DECR] as const),
]);

const IDIOMS = new Map<string, number>([
  ['the shit', 3],
  ['the bomb', 3],
  ['bad ass', 1.5],
  ['badass', 1.5],
  ['bus stop', 0],
  ['yeah right', -2],
  ['kiss of death', -1.5],
  ['to die for', 3],
  ['beating heart', 3.1],
  ['broken heart', -2.9],
  ['cut the mustard', 2],
  ['hand to mouth', -2],
]);

/** Words that can start an idiom or a two-word booster: the idiom check runs only near them. */
const IDIOM_TOKENS = new Set([
  'shit',
  'bomb',
  'ass',
  'badass',
  'bus',
  'yeah',
  'kiss',
  'death',
  'die',
  'heart',
  'mustard',
  'mouth',
  'kind',
  'sort',
  'just',
]);

export interface VaderOptions {
  /** extra words (lower case; phrases with single spaces), VADER scale */
  extraWords?: Record<string, number>;
  extraPhrases?: Record<string, number>;
  /**
   * Word classes for `adjust`, bit masks under 2^23, read back with
   * TokenView.classOf: folded into the one lookup per token the scorer does anyway.
   */
  wordClasses?: ReadonlyMap<string, number>;
  /** called with a text's tokens and their valences, when some token scored or has a word class, before "but" weighs the clauses; may change the valences */
  adjust?: (tokens: TokenView, valences: number[]) => void;
}

/**
 * The tokens of one text as `adjust` sees them, index by index. Arrays are
 * the scorer's own (read only); what only some rules need is asked for by
 * method, so a sentence that needs none costs nothing more.
 */
export interface TokenView {
  /** as written, surrounding punctuation dropped; phrases joined by "_" */
  readonly words: readonly string[];
  readonly lower: readonly string[];
  /** a one-letter word dropped just before the token ("I"), lower case, else "" */
  readonly shortBefore: readonly string[];
  /** what ends with each token: END_CLAUSE (`,` `;` `:`), END_SENTENCE (`.` `!` `?` `;`), END_BANG (`!`), END_QUESTION (`?`), 0 for nothing */
  readonly ends: readonly number[];
  /** the `wordClasses` bits of token i, 0 when none */
  classOf(i: number): number;
  /** "!" ends token i or the sentence it is in */
  exclaimed(i: number): boolean;
  /** token i is in capitals among words that are not: VADER's emphasis */
  shouted(i: number): boolean;
  /** token i is a booster or dampener ("very", "slightly") */
  booster(i: number): boolean;
  /** the valence the lexicon gives token i, before any rule */
  base(i: number): number;
}

export interface Vader {
  /** compound score in [-1, 1] */
  score(text: string): number;
}

const LEAD_CONCESSION = new Set(['although', 'though', 'while', 'whereas']);

function punctAt(token: string, i: number): boolean {
  const c = token.charCodeAt(i);
  return (
    (c >= 33 && c <= 47) ||
    (c >= 58 && c <= 64) ||
    (c >= 91 && c <= 96) ||
    (c >= 123 && c <= 126) ||
    (c >= 0x2013 && c <= 0x2026)
  );
}

/** The characters a token loses at either end: ASCII punctuation and “ ” ‘ ’ … – —. */
function stripped(c: number): boolean {
  if (c < 0x80) return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126);
  return c === 0x201c || c === 0x201d || c === 0x2018 || c === 0x2019 || c === 0x2026 || c === 0x2013 || c === 0x2014;
}

/**
 * `token` without the punctuation at its ends, as
 * `token.replace(/^[<those>]+|[<those>]+$/g, '')` gives. Cut with two loops:
 * under /g the second half of that expression started at every character
 * of a run of punctuation inside the token and read to the run's end from
 * each (9 s for one token of 100,000 "!").
 */
export function withoutEndPunctuation(token: string): string {
  let start = 0;
  let end = token.length;
  while (start < end && stripped(token.charCodeAt(start))) start++;
  while (end > start && stripped(token.charCodeAt(end - 1))) end--;
  return start === 0 && end === token.length ? token : token.slice(start, end);
}

/**
 * Bits of `flags`, one Map lookup per token instead of one per word list:
 * the scorer asks of every token whether it is in the lexicon, a booster,
 * an idiom word, a negation and the start of a phrase.
 */
const KNOWN = 1;
const BOOST = 2;
const IDIOM = 4;
const NEG = 8;
const PHRASE = 16;
/** Bits of TokenView.ends. */
export const END_CLAUSE = 1;
export const END_SENTENCE = 2;
export const END_BANG = 4;
/** A question: no rule of the scorer reads it; the evaluation's trials of neutral-band rules do (test/unit/analysis/neutral-rules.ts). */
export const END_QUESTION = 8;

/** Bits from VaderOptions.wordClasses sit above VADER's own. */
const CLASS_SHIFT = 8;

interface Phrase {
  words: string[];
  key: string;
  /** what `key.toLowerCase()` gives, computed once */
  keyLower: string;
}

/** Per-token casing and whether an idiom word is present, read by valenceAt. */
interface Cues {
  upper: boolean[];
  /** some but not all tokens are in capitals: capitals then add emphasis */
  capDiff: boolean;
  idiomsNear: boolean;
}

/** The tokens of one text, in parallel arrays; phrases splice them all alike. */
interface Tokens {
  words: string[];
  lower: string[];
  flags: number[];
  /** END_* bits */
  ends: number[];
  shortBefore: string[];
  /** some token has wordClasses bits */
  classed: boolean;
}

export function createVader(options: VaderOptions = {}): Vader {
  const lexicon = new Map<string, number>(Object.entries(BASE));
  for (const [w, v] of Object.entries(options.extraWords ?? {})) lexicon.set(w, v);
  // Phrases are joined into one token after splitting, keyed by first word.
  const phrases = new Map<string, Phrase[]>();
  for (const [p, v] of Object.entries(options.extraPhrases ?? {})) {
    const words = p.toLowerCase().split(' ');
    const key = words.join('_');
    lexicon.set(key, v);
    const list = phrases.get(words[0] ?? '') ?? [];
    list.push({ words, key, keyLower: key.toLowerCase() });
    list.sort((a, b) => b.words.length - a.words.length);
    phrases.set(words[0] ?? '', list);
  }
  const leastKnown = lexicon.has('least');

  // Built last, once the lexicon holds the phrase keys too.
  const wordFlags = new Map<string, number>();
  const mark = (words: Iterable<string>, bit: number): void => {
    for (const w of words) wordFlags.set(w, (wordFlags.get(w) ?? 0) | bit);
  };
  mark(lexicon.keys(), KNOWN);
  mark(BOOSTERS.keys(), BOOST);
  mark(IDIOM_TOKENS, IDIOM);
  mark(NEGATE, NEG);
  mark(phrases.keys(), PHRASE);
  for (const [w, bits] of options.wordClasses ?? []) wordFlags.set(w, (wordFlags.get(w) ?? 0) | (bits << CLASS_SHIFT));

  /** `negated` of the reference: a negation word or any "n't" contraction. */
  function negatedAt(t: Tokens, j: number): boolean {
    return has(t.flags, j, NEG) || (t.lower[j] ?? '').includes("n't");
  }

  /**
   * Joins each phrase's words into one token, left to right, longest phrase
   * first. The arrays are rewritten in one pass, compacting in place: a
   * splice per phrase moved every later token each time (a sentence of
   * thousands of phrases was quadratic).
   */
  function joinPhrases(t: Tokens): void {
    const { words, lower, flags, ends, shortBefore } = t;
    const total = words.length;
    let out = 0;
    for (let i = 0; i < total;) {
      // Read ahead of `out`, so tokens from i on are still the split ones and their flag still tells a phrase start.
      const phrase = has(flags, i, PHRASE) ? phraseAt(lower, ends, i, total) : undefined;
      if (phrase === undefined && out === i) {
        // Nothing joined yet: the token is already in its place.
        out++;
        i++;
        continue;
      }
      const n = phrase?.words.length ?? 1;
      words[out] = phrase?.key ?? words[i]!;
      lower[out] = phrase?.keyLower ?? lower[i]!;
      flags[out] = phrase === undefined ? flags[i]! : (wordFlags.get(phrase.keyLower) ?? 0);
      ends[out] = ends[i + n - 1] ?? 0;
      // A phrase keeps the short word before its first word.
      shortBefore[out] = shortBefore[i] ?? '';
      out++;
      i += n;
    }
    words.length = out;
    lower.length = out;
    flags.length = out;
    ends.length = out;
    shortBefore.length = out;
  }

  /** The longest phrase whose words start at token i, none of them ending a clause but the last. */
  function phraseAt(lower: readonly string[], ends: readonly number[], i: number, total: number): Phrase | undefined {
    for (const c of phrases.get(lower[i] ?? '') ?? []) {
      const n = c.words.length;
      if (i + n > total) continue;
      let ok = true;
      for (let k = 1; k < n && ok; k++) ok = lower[i + k] === c.words[k] && !ends[i + k - 1];
      if (ok) return c;
    }
    return undefined;
  }

  function tokenize(raw: string): Tokens {
    const t: Tokens = { words: [], lower: [], flags: [], ends: [], shortBefore: [], classed: false };
    let phraseStart = false;
    let short = '';
    // The pieces of raw.split(' '), cut out with indexOf: measured about a
    // quarter faster than split on sentences, and pieces too short to count are never copied.
    let from = 0;
    while (from <= raw.length) {
      let to = raw.indexOf(' ', from);
      if (to < 0) to = raw.length;
      const start = from;
      from = to + 1;
      if (to - start < 2) {
        // A lone "I" or "!" is no token, but says who speaks or where a sentence ends.
        if (to - start === 1) short = droppedPiece(t, raw[start] ?? '');
        continue;
      }
      const token = raw.slice(start, to);
      const bare =
        !punctAt(token, 0) && !punctAt(token, token.length - 1)
          ? token
          : lexicon.has(token.toLowerCase())
            ? token
            : withoutEndPunctuation(token);
      if (bare.length < 2) {
        short = droppedPiece(t, token);
        continue;
      }
      const l = bare.toLowerCase();
      const f = wordFlags.get(l) ?? 0;
      t.words.push(bare);
      t.lower.push(l);
      t.flags.push(f);
      t.shortBefore.push(short);
      short = '';
      if ((f & PHRASE) !== 0) phraseStart = true;
      if (f >= 1 << CLASS_SHIFT) t.classed = true;
      t.ends.push(endOf(token.charCodeAt(token.length - 1)));
    }
    if (phraseStart) joinPhrases(t);
    return t;
  }

  function score(raw: string): number {
    const t = tokenize(raw);
    const { words, lower, flags, ends } = t;
    const n = words.length;
    const upper: boolean[] = new Array<boolean>(n);
    let upperCount = 0;
    let idiomsNear = false;
    for (let i = 0; i < n; i++) {
      const w = words[i] ?? '';
      upper[i] = w !== lower[i] && w === w.toUpperCase();
      if (upper[i]) upperCount++;
      if (has(flags, i, IDIOM)) idiomsNear = true;
    }
    const cues: Cues = { upper, capDiff: upperCount > 0 && upperCount < n, idiomsNear };
    // Filled by push, in order: V8 keeps a packed array of doubles, cheaper to sum than a pre-filled holey one.
    const sentiments: number[] = [];
    for (let i = 0; i < n; i++) sentiments.push(valenceAt(t, cues, i));
    if (options.adjust !== undefined && (t.classed || scored(sentiments)))
      options.adjust(new View(t, cues, lexicon), sentiments);

    contrast(lower, ends, sentiments);
    let sum = 0;
    for (let i = 0; i < n; i++) sum += sentiments[i] ?? 0;
    if (sum === 0) return 0;
    const bangs = occurrences(raw, '!');
    const qms = occurrences(raw, '?');
    const amp = Math.min(4, bangs) * 0.292 + (qms > 1 ? (qms <= 3 ? qms * 0.18 : 0.96) : 0);
    sum += sum > 0 ? amp : -amp;
    return Math.max(-1, Math.min(1, sum / Math.sqrt(sum * sum + 15)));
  }

  /** Valence of token i with its boosters, negations, idioms and "least"; 0 for words that carry none. */
  function valenceAt(t: Tokens, cues: Cues, i: number): number {
    const { lower, flags } = t;
    const { upper, capDiff, idiomsNear } = cues;
    const n = lower.length;
    const low = lower[i] ?? '';
    if (!has(flags, i, KNOWN) || has(flags, i, BOOST) || (low === 'kind' && lower[i + 1] === 'of')) return 0;
    const base = lexicon.get(low) ?? 0;
    let v = base;
    // How far back this token's sentence reaches, up to the three words VADER looks at.
    let back = 0;
    while (back < 3 && back < i && ((t.ends[i - back - 1] ?? 0) & END_SENTENCE) === 0) back++;
    if (low === 'no' && i !== n - 1 && has(flags, i + 1, KNOWN) && lower[i + 1] !== 'no') v = 0;
    if (
      low !== 'no' &&
      ((back > 0 && lower[i - 1] === 'no') ||
        (back > 1 && lower[i - 2] === 'no') ||
        (back > 2 && lower[i - 3] === 'no' && (lower[i - 1] === 'or' || lower[i - 1] === 'nor')))
    ) {
      v = base * N_SCALAR;
    }
    if (upper[i] && capDiff) v += v > 0 ? C_INCR : -C_INCR;
    for (let k = 0; k < back; k++) {
      const j = i - (k + 1);
      if (has(flags, j, KNOWN)) continue;
      // Not a booster: the reference's scalar() is 0, and adding 0 is kept as it was.
      let s = has(flags, j, BOOST) ? scalar(lower[j] ?? '', upper[j] === true, v, capDiff) : 0;
      if (k === 1 && s !== 0) s *= 0.95;
      if (k === 2 && s !== 0) s *= 0.9;
      v += s;
      v = negation(v, t, k, i);
      if (k === 2 && idiomsNear) v = idioms(v, lower, i);
    }
    return least(v, lower, i);
  }

  function negation(v: number, t: Tokens, k: number, i: number): number {
    const w = t.lower;
    if (k === 0) return negatedAt(t, i - 1) ? v * N_SCALAR : v;
    if (k === 1) {
      if (w[i - 2] === 'never' && soThis(w[i - 1])) return v * 1.25;
      if (w[i - 2] === 'without' && w[i - 1] === 'doubt') return v;
      return negatedAt(t, i - 2) ? v * N_SCALAR : v;
    }
    if (w[i - 3] === 'never' && (soThis(w[i - 2]) || soThis(w[i - 1]))) return v * 1.25;
    if (w[i - 3] === 'without' && (w[i - 2] === 'doubt' || w[i - 1] === 'doubt')) return v;
    return negatedAt(t, i - 3) ? v * N_SCALAR : v;
  }

  function least(v: number, lower: readonly string[], i: number): number {
    if (i > 0 && lower[i - 1] === 'least' && !leastKnown) {
      if (i > 1 && (lower[i - 2] === 'at' || lower[i - 2] === 'very')) return v;
      return v * N_SCALAR;
    }
    return v;
  }

  return { score };
}

/** Texts of up to this many tokens answer `exclaimed` by walking: as cheap as making the table, and the usual case. */
const SHORT_SENTENCE = 64;

/** TokenView over one text's tokens: one small object, its methods shared. */
class View implements TokenView {
  readonly words: readonly string[];
  readonly lower: readonly string[];
  readonly shortBefore: readonly string[];
  readonly ends: readonly number[];
  private readonly flags: readonly number[];
  private readonly cues: Cues;
  private readonly lexicon: ReadonlyMap<string, number>;
  /** exclaimed(i) of every token, worked out on first use */
  private bangs: boolean[] | null = null;

  constructor(t: Tokens, cues: Cues, lexicon: ReadonlyMap<string, number>) {
    this.words = t.words;
    this.lower = t.lower;
    this.shortBefore = t.shortBefore;
    this.ends = t.ends;
    this.flags = t.flags;
    this.cues = cues;
    this.lexicon = lexicon;
  }

  classOf(i: number): number {
    return (this.flags[i] ?? 0) >> CLASS_SHIFT;
  }

  /**
   * Whether the first sentence end at or after token i is a "!". For a long
   * text, worked out for every token in one backward pass the first time it
   * is asked: the rules ask it of many tokens, and walking to the sentence
   * end for each was quadratic in a long sentence.
   */
  exclaimed(i: number): boolean {
    if (this.ends.length <= SHORT_SENTENCE) {
      for (let j = i; j < this.ends.length; j++) {
        const e = this.ends[j] ?? 0;
        if ((e & END_SENTENCE) !== 0) return (e & END_BANG) !== 0;
      }
      return false;
    }
    if (this.bangs === null) {
      const bangs = new Array<boolean>(this.ends.length);
      let bang = false;
      for (let j = this.ends.length - 1; j >= 0; j--) {
        const e = this.ends[j] ?? 0;
        if ((e & END_SENTENCE) !== 0) bang = (e & END_BANG) !== 0;
        bangs[j] = bang;
      }
      this.bangs = bangs;
    }
    return this.bangs[i] ?? false;
  }

  shouted(i: number): boolean {
    return this.cues.capDiff && this.cues.upper[i] === true;
  }

  booster(i: number): boolean {
    return has(this.flags, i, BOOST);
  }

  base(i: number): number {
    return has(this.flags, i, KNOWN) ? (this.lexicon.get(this.lower[i] ?? '') ?? 0) : 0;
  }
}

function scored(valences: readonly number[]): boolean {
  for (const v of valences) if (v !== 0) return true;
  return false;
}

/** END_* bits for a token's last character. */
function endOf(last: number): number {
  if (last === 44 || last === 58) return END_CLAUSE;
  if (last === 59) return END_CLAUSE | END_SENTENCE;
  if (last === 63) return END_SENTENCE | END_QUESTION;
  if (last === 46) return END_SENTENCE;
  return last === 33 ? END_SENTENCE | END_BANG : 0;
}

/**
 * Notes what a piece too short to be a token says: "!" or "." ends the
 * sentence of the token before it ("Great !"); a one-letter word ("I") is
 * returned, lower case, for the next token's `shortBefore`.
 */
function droppedPiece(t: Tokens, piece: string): string {
  const last = t.ends.length - 1;
  const end = endOf(piece.charCodeAt(piece.length - 1));
  if (last >= 0 && (end & END_SENTENCE) !== 0)
    t.ends[last] = (t.ends[last] ?? 0) | end | (piece.includes('!') ? END_BANG : 0);
  const c = piece.length === 1 ? piece.charCodeAt(0) | 32 : 0;
  return c >= 97 && c <= 122 ? String.fromCharCode(c) : '';
}

function scalar(lower: string, upper: boolean, valence: number, capDiff: boolean): number {
  const b = BOOSTERS.get(lower);
  if (b === undefined) return 0;
  let s = valence < 0 ? -b : b;
  if (upper && capDiff) s += valence > 0 ? C_INCR : -C_INCR;
  return s;
}

/** How many times `char` occurs in `text`; indexOf searches natively, faster than reading every character. */
function occurrences(text: string, char: string): number {
  let count = 0;
  for (let at = text.indexOf(char); at >= 0; at = text.indexOf(char, at + 1)) count++;
  return count;
}

/** Whether token i carries a flag bit. */
function has(flags: readonly number[], i: number, bit: number): boolean {
  return ((flags[i] ?? 0) & bit) !== 0;
}

function soThis(x: string | undefined): boolean {
  return x === 'so' || x === 'this';
}

function idioms(v: number, w: readonly string[], i: number): number {
  const at = (j: number): string => w[j] ?? '';
  const seqs = [
    `${at(i - 1)} ${at(i)}`,
    `${at(i - 2)} ${at(i - 1)} ${at(i)}`,
    `${at(i - 2)} ${at(i - 1)}`,
    `${at(i - 3)} ${at(i - 2)} ${at(i - 1)}`,
    `${at(i - 3)} ${at(i - 2)}`,
  ];
  let out = v;
  for (const s of seqs) {
    const idiom = IDIOMS.get(s);
    if (idiom !== undefined) {
      out = idiom;
      break;
    }
  }
  const next2 = IDIOMS.get(`${at(i)} ${at(i + 1)}`);
  if (i + 1 < w.length && next2 !== undefined) out = next2;
  const next3 = IDIOMS.get(`${at(i)} ${at(i + 1)} ${at(i + 2)}`);
  if (i + 2 < w.length && next3 !== undefined) out = next3;
  if (BOOSTERS.has(`${at(i - 3)} ${at(i - 2)}`) || BOOSTERS.has(`${at(i - 2)} ${at(i - 1)}`)) out += B_DECR;
  return out;
}

/** "but" and "however": what follows weighs 1.5, what precedes 0.5. */
function contrast(lower: readonly string[], ends: readonly number[], s: number[]): void {
  let pivot = lower.findIndex((w) => w === 'but' || w === 'however');
  if (pivot < 0 && LEAD_CONCESSION.has(lower[0] ?? '')) {
    const comma = ends.findIndex((e) => (e & END_CLAUSE) !== 0);
    if (comma > 0) pivot = comma + 0.5;
  }
  if (pivot < 0) return;
  for (let i = 0; i < s.length; i++) {
    if (i < pivot) s[i] = (s[i] ?? 0) * 0.5;
    else if (i > pivot) s[i] = (s[i] ?? 0) * 1.5;
  }
}
