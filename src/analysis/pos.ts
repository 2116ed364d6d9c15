import { createRequire } from 'node:module';

/**
 * Part of speech of one word in its sentence, from wink-nlp's English model
 * (a maintained tagger whose model ships inside its npm package: nothing is
 * downloaded). It is asked only where the words around an everyday-word name
 * cannot tell a verb or an adverb from a name ("Zoom out at the end", "Once
 * you have matched"), about a sentence a time: tagging costs about 0.2 ms a
 * sentence, too much for every occurrence (docs/decisions.md).
 */

export type Pos =
  | 'ADJ'
  | 'ADP'
  | 'ADV'
  | 'AUX'
  | 'CCONJ'
  | 'DET'
  | 'INTJ'
  | 'NOUN'
  | 'NUM'
  | 'PART'
  | 'PRON'
  | 'PROPN'
  | 'PUNCT'
  | 'SCONJ'
  | 'SYM'
  | 'VERB'
  | 'X'
  | 'SPACE';

interface Tagger {
  readDoc(text: string): {
    tokens(): { each(fn: (t: { out(what?: unknown): string }) => void): void };
  };
  its: { pos: unknown; precedingSpaces: unknown; value: unknown };
}

let tagger: Tagger | null = null;

function load(): Tagger {
  if (tagger === null) {
    const require = createRequire(import.meta.url);
    // Both packages are CommonJS; the model is only ever read through winkNLP.
    const winkNLP = require('wink-nlp') as (model: unknown, pipe: string[]) => Tagger;
    tagger = winkNLP(require('wink-eng-lite-web-model'), ['pos']);
  }
  return tagger;
}

/** Tags of the word at [start, end) of `sentence` and of the word after it (past adverbs); null where no token starts there. */
export function posAround(sentence: string, start: number, end: number): { word: Pos | null; next: Pos | null } {
  const nlp = load();
  let at = 0;
  let word: Pos | null = null;
  let next: Pos | null = null;
  let passed = false;
  nlp
    .readDoc(sentence)
    .tokens()
    .each((t) => {
      if (next !== null) return;
      at += t.out(nlp.its.precedingSpaces).length;
      const value = t.out(nlp.its.value);
      if (at === start) word = t.out(nlp.its.pos) as Pos;
      else if (passed && at >= end && /\p{L}/u.test(value)) {
        // "Patagonia also repairs gear": the verb past an adverb is the one the name is the subject of.
        const pos = t.out(nlp.its.pos) as Pos;
        if (pos !== 'ADV') next = pos;
      }
      at += value.length;
      if (at >= end) passed = true;
    });
  return { word, next };
}
