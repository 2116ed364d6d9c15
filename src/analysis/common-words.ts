import data from './common-words.json' with { type: 'json' };

const COMMON = new Set(data.words);

/** `word` must be folded (lower case, no accents). */
export function isCommonWord(word: string): boolean {
  return COMMON.has(word);
}

/** True when every word of a folded phrase is an everyday word. */
export function isCommonPhrase(folded: string): boolean {
  const words = folded.split(/[^\p{L}\p{N}]+/u).filter((w) => w !== '');
  return words.length > 0 && words.every(isCommonOrPlural);
}

function isCommonOrPlural(word: string): boolean {
  if (COMMON.has(word)) return true;
  if (word.endsWith('ies')) return COMMON.has(`${word.slice(0, -3)}y`);
  if (word.endsWith('es') && COMMON.has(word.slice(0, -2))) return true;
  return word.endsWith('s') && COMMON.has(word.slice(0, -1));
}
