import { lexicon as BASE } from 'vader-sentiment/src/vader_lexicon.js';

/**
 * The VADER rules (Hutto & Gilbert 2014, reference implementation 3.3.2)
 * over the VADER lexicon shipped by the vader-sentiment package. Ported here
 * because that package's scorer costs about 0.3 ms a sentence (it rebuilds a
 * word-by-punctuation table on every call) and keeps its lexicon private, so
 * it cannot take product words. Differences from the reference, all on
 * purpose: tokens lose all surrounding punctuation (so "(reliable)" counts),
 * and "however" weighs clauses like "but"; a leading "although"/"though"/
 * "while"/"whereas" clause weighs half, the clause after its comma 1.5 times.
 */
const B_INCR = 0.293;
const B_DECR = -0.293;
const C_INCR = 0.733;
const N_SCALAR = -0.74;

const NEGATE = new Set([
  'aint', 'arent', 'cannot', 'cant', 'couldnt', 'darent', 'didnt', 'doesnt', "ain't", "aren't", "can't", "couldn't", "daren't", "didn't", "doesn't",
  'dont', 'hadnt', 'hasnt', 'havent', 'isnt', 'mightnt', 'mustnt', 'neither', "don't", "hadn't", "hasn't", "haven't", "isn't", "mightn't", "mustn't",
  'neednt', "needn't", 'never', 'none', 'nope', 'nor', 'not', 'nothing', 'nowhere', 'oughtnt', 'shant', 'shouldnt', 'uhuh', 'wasnt', 'werent',
  "oughtn't", "shan't", "shouldn't", 'uh-uh', "wasn't", "weren't", 'without', 'wont', 'wouldnt', "won't", "wouldn't", 'rarely', 'seldom', 'despite',
]);

const BOOSTERS = new Map<string, number>([
  ...['absolutely', 'amazingly', 'awfully', 'completely', 'considerable', 'considerably', 'decidedly', 'deeply', 'effing', 'enormous', 'enormously', 'entirely',
    'especially', 'exceptional', 'exceptionally', 'extreme', 'extremely', 'fabulously', 'flipping', 'flippin', 'frackin', 'fracking', 'fricking', 'frickin',
    'frigging', 'friggin', 'fully', 'fuckin', 'fucking', 'fuggin', 'fugging', 'greatly', 'hella', 'highly', 'hugely', 'incredible', 'incredibly', 'intensely',
    'major', 'majorly', 'more', 'most', 'particularly', 'purely', 'quite', 'really', 'remarkably', 'so', 'substantially', 'thoroughly', 'total', 'totally',
    'tremendous', 'tremendously', 'uber', 'unbelievably', 'unusually', 'utter', 'utterly', 'very'].map((w) => [w, B_INCR] as const),
  ...['almost', 'barely', 'hardly', 'just enough', 'kind of', 'kinda', 'kindof', 'kind-of', 'less', 'little', 'marginal', 'marginally', 'occasional',
    'occasionally', 'partly', 'scarce', 'scarcely', 'slight', 'slightly', 'somewhat', 'sort of', 'sorta', 'sortof', 'sort-of'].map((w) => [w, B_DECR] as const),
]);

const IDIOMS = new Map<string, number>([
  ['the shit', 3], ['the bomb', 3], ['bad ass', 1.5], ['badass', 1.5], ['bus stop', 0], ['yeah right', -2], ['kiss of death', -1.5],
  ['to die for', 3], ['beating heart', 3.1], ['broken heart', -2.9], ['cut the mustard', 2], ['hand to mouth', -2],
]);

/** Words that can start an idiom or a two-word booster: the idiom check runs only near them. */
const IDIOM_TOKENS = new Set(['shit', 'bomb', 'ass', 'badass', 'bus', 'yeah', 'kiss', 'death', 'die', 'heart', 'mustard', 'mouth', 'kind', 'sort', 'just']);

export interface VaderOptions {
  /** extra words (lower case; phrases with single spaces), VADER scale */
  extraWords?: Record<string, number>;
  extraPhrases?: Record<string, number>;
}

export interface Vader {
  /** compound score in [-1, 1] */
  score(text: string): number;
}

const PUNCT = /^[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~“”‘’…–—]+|[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~“”‘’…–—]+$/g;
const LEAD_CONCESSION = new Set(['although', 'though', 'while', 'whereas']);

function punctAt(token: string, i: number): boolean {
  const c = token.charCodeAt(i);
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126) || (c >= 0x2013 && c <= 0x2026);
}

export function createVader(options: VaderOptions = {}): Vader {
  const lexicon = new Map<string, number>(Object.entries(BASE));
  for (const [w, v] of Object.entries(options.extraWords ?? {})) lexicon.set(w, v);
  // Phrases are joined into one token after splitting, keyed by first word.
  const phrases = new Map<string, { words: string[]; key: string }[]>();
  for (const [p, v] of Object.entries(options.extraPhrases ?? {})) {
    const words = p.toLowerCase().split(' ');
    const key = words.join('_');
    lexicon.set(key, v);
    const list = phrases.get(words[0] ?? '') ?? [];
    list.push({ words, key });
    list.sort((a, b) => b.words.length - a.words.length);
    phrases.set(words[0] ?? '', list);
  }

  function joinPhrases(words: string[], clauseEnd: boolean[]): void {
    for (let i = 0; i < words.length; i++) {
      const candidates = phrases.get((words[i] ?? '').toLowerCase());
      if (candidates === undefined) continue;
      for (const c of candidates) {
        if (i + c.words.length > words.length) continue;
        let ok = true;
        for (let k = 1; k < c.words.length && ok; k++) ok = (words[i + k] ?? '').toLowerCase() === c.words[k] && !clauseEnd[i + k - 1];
        if (!ok) continue;
        words.splice(i, c.words.length, c.key);
        clauseEnd.splice(i, c.words.length, clauseEnd[i + c.words.length - 1] ?? false);
        break;
      }
    }
  }

  function score(raw: string): number {
    const words: string[] = [];
    const clauseEnd: boolean[] = [];
    for (const token of raw.split(' ')) {
      if (token.length < 2) continue;
      const bare = !punctAt(token, 0) && !punctAt(token, token.length - 1) ? token : lexicon.has(token.toLowerCase()) ? token : token.replace(PUNCT, '');
      if (bare.length < 2) continue;
      words.push(bare);
      const last = token.charCodeAt(token.length - 1);
      clauseEnd.push(last === 44 || last === 59 || last === 58);
    }
    if (phrases.size > 0) joinPhrases(words, clauseEnd);
    const n = words.length;
    const lower: string[] = new Array<string>(n);
    const upper: boolean[] = new Array<boolean>(n);
    const known: boolean[] = new Array<boolean>(n);
    let upperCount = 0;
    for (let i = 0; i < n; i++) {
      const w = words[i] ?? '';
      const l = w.toLowerCase();
      lower[i] = l;
      known[i] = lexicon.has(l);
      upper[i] = w !== l && w === w.toUpperCase();
      if (upper[i]) upperCount++;
    }
    const capDiff = upperCount > 0 && upperCount < n;
    const sentiments: number[] = new Array<number>(n).fill(0);
    let idiomsNear = false;
    for (let i = 0; i < n && !idiomsNear; i++) idiomsNear = IDIOM_TOKENS.has(lower[i] ?? '');

    for (let i = 0; i < n; i++) {
      const low = lower[i] ?? '';
      if (!known[i] || BOOSTERS.has(low) || (low === 'kind' && lower[i + 1] === 'of')) continue;
      const base = lexicon.get(low) ?? 0;
      let v = base;
      if (low === 'no' && i !== n - 1 && known[i + 1]) v = 0;
      if ((i > 0 && lower[i - 1] === 'no') || (i > 1 && lower[i - 2] === 'no') || (i > 2 && lower[i - 3] === 'no' && (lower[i - 1] === 'or' || lower[i - 1] === 'nor'))) {
        v = base * N_SCALAR;
      }
      if (upper[i] && capDiff) v += v > 0 ? C_INCR : -C_INCR;
      for (let k = 0; k < 3 && i > k; k++) {
        const j = i - (k + 1);
        if (known[j]) continue;
        let s = scalar(lower[j] ?? '', upper[j] === true, v, capDiff);
        if (k === 1 && s !== 0) s *= 0.95;
        if (k === 2 && s !== 0) s *= 0.9;
        v += s;
        v = negation(v, lower, k, i);
        if (k === 2 && idiomsNear) v = idioms(v, lower, i);
      }
      v = least(v, lower, i);
      sentiments[i] = v;
    }

    contrast(lower, clauseEnd, sentiments);
    let sum = 0;
    for (const x of sentiments) sum += x;
    if (sum === 0) return 0;
    let bangs = 0;
    let qms = 0;
    for (let i = 0; i < raw.length; i++) {
      const c = raw.charCodeAt(i);
      if (c === 33) bangs++;
      else if (c === 63) qms++;
    }
    const amp = Math.min(4, bangs) * 0.292 + (qms > 1 ? (qms <= 3 ? qms * 0.18 : 0.96) : 0);
    sum += sum > 0 ? amp : -amp;
    return Math.max(-1, Math.min(1, sum / Math.sqrt(sum * sum + 15)));
  }

  function least(v: number, lower: readonly string[], i: number): number {
    if (i > 0 && lower[i - 1] === 'least' && !lexicon.has('least')) {
      if (i > 1 && (lower[i - 2] === 'at' || lower[i - 2] === 'very')) return v;
      return v * N_SCALAR;
    }
    return v;
  }

  return { score };
}

function scalar(lower: string, upper: boolean, valence: number, capDiff: boolean): number {
  const b = BOOSTERS.get(lower);
  if (b === undefined) return 0;
  let s = valence < 0 ? -b : b;
  if (upper && capDiff) s += valence > 0 ? C_INCR : -C_INCR;
  return s;
}

function negated(word: string | undefined): boolean {
  return word !== undefined && (NEGATE.has(word) || word.includes("n't"));
}

function negation(v: number, w: readonly string[], k: number, i: number): number {
  const soThis = (x: string | undefined): boolean => x === 'so' || x === 'this';
  if (k === 0) return negated(w[i - 1]) ? v * N_SCALAR : v;
  if (k === 1) {
    if (w[i - 2] === 'never' && soThis(w[i - 1])) return v * 1.25;
    if (w[i - 2] === 'without' && w[i - 1] === 'doubt') return v;
    return negated(w[i - 2]) ? v * N_SCALAR : v;
  }
  if (w[i - 3] === 'never' && (soThis(w[i - 2]) || soThis(w[i - 1]))) return v * 1.25;
  if (w[i - 3] === 'without' && (w[i - 2] === 'doubt' || w[i - 1] === 'doubt')) return v;
  return negated(w[i - 3]) ? v * N_SCALAR : v;
}

function idioms(v: number, w: readonly string[], i: number): number {
  const at = (j: number): string => w[j] ?? '';
  const seqs = [`${at(i - 1)} ${at(i)}`, `${at(i - 2)} ${at(i - 1)} ${at(i)}`, `${at(i - 2)} ${at(i - 1)}`, `${at(i - 3)} ${at(i - 2)} ${at(i - 1)}`, `${at(i - 3)} ${at(i - 2)}`];
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
function contrast(lower: readonly string[], clauseEnd: readonly boolean[], s: number[]): void {
  let pivot = lower.findIndex((w) => w === 'but' || w === 'however');
  if (pivot < 0 && LEAD_CONCESSION.has(lower[0] ?? '')) {
    const comma = clauseEnd.indexOf(true);
    if (comma > 0) pivot = comma + 0.5;
  }
  if (pivot < 0) return;
  for (let i = 0; i < s.length; i++) {
    if (i < pivot) s[i] = (s[i] ?? 0) * 0.5;
    else if (i > pivot) s[i] = (s[i] ?? 0) * 1.5;
  }
}
