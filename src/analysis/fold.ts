/**
 * Length-preserving text folding: every UTF-16 unit maps to exactly one unit,
 * so offsets found in folded text are offsets in the original answer and no
 * index map is needed. Folding lower-cases and drops accents (é -> e); the
 * few letters Unicode does not decompose are mapped by hand.
 */
const EXTRA: Record<string, string> = {
  ø: 'o',
  Ø: 'o',
  đ: 'd',
  Đ: 'd',
  ł: 'l',
  Ł: 'l',
  ı: 'i',
  ħ: 'h',
  Ħ: 'h',
  ŧ: 't',
  Ŧ: 't',
  // Typographic variants that models emit for the same keystroke.
  '\u2018': "'",
  '\u2019': "'",
  '\u02BC': "'",
  '\u2032': "'",
  '\u201C': '"',
  '\u201D': '"',
  '\u2010': '-',
  '\u2011': '-',
  '\u00A0': ' ',
  '\u2007': ' ',
  '\u2009': ' ',
  '\u202F': ' ',
};

const WORD = /[\p{L}\p{N}\p{M}]/u;

/** folded code unit of each code unit */
export const FOLD = new Uint16Array(65536);
/** 1 when the unit is part of a word (letter, digit or combining mark) */
export const IS_WORD = new Uint8Array(65536);
/** same as FOLD but keeps case: used where casing carries meaning */
export const STRIP = new Uint16Array(65536);

for (let i = 0; i < 65536; i++) {
  FOLD[i] = i;
  STRIP[i] = i;
  // Lone surrogates: astral characters (emoji, rare scripts) never fold.
  if (i >= 0xd800 && i < 0xe000) continue;
  const ch = String.fromCharCode(i);
  if (WORD.test(ch)) IS_WORD[i] = 1;
  const extra = EXTRA[ch];
  const base = extra ?? ch.normalize('NFD')[0] ?? ch;
  const stripped = base.length === 1 ? base : ch;
  STRIP[i] = stripped.charCodeAt(0);
  const lower = stripped.toLowerCase();
  FOLD[i] = lower.length === 1 ? lower.charCodeAt(0) : stripped.charCodeAt(0);
}

export function fold(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += String.fromCharCode(FOLD[text.charCodeAt(i)] ?? 0);
  return out;
}

export function stripAccents(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) out += String.fromCharCode(STRIP[text.charCodeAt(i)] ?? 0);
  return out;
}

export function isWordAt(text: string, index: number): boolean {
  if (index < 0 || index >= text.length) return false;
  return IS_WORD[text.charCodeAt(index)] === 1;
}
