import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineStarts, linesOf } from '../../../src/analysis/lines.ts';
import { RANK_CELL } from '../../../src/analysis/lists.ts';
import { clauseCuts, linkTexts } from '../../../src/analysis/sentiment.ts';
import { isSpace } from '../../../src/analysis/spaces.ts';
import { CHAIN_RE, chainsIn } from '../../../src/analysis/suggestions.ts';
import { tokensOf } from '../../../src/analysis/tokens.ts';
import { spanAt, withoutTrailingPunctuation, type UrlSpan } from '../../../src/analysis/urls.ts';
import { createVader, END_BANG, END_SENTENCE, withoutEndPunctuation } from '../../../src/analysis/vader.ts';
import { IS_WORD } from '../../../src/analysis/fold.ts';

/**
 * Issue 24 rewrote parts of the analysis that were super-linear on hostile
 * text (test/unit/analysis/linear-time.test.ts). Each rewrite must give what
 * the code it replaced gave: here each is checked against that code, kept
 * below as the reference, on generated text made of the characters that
 * matter to it.
 */

/** Text of up to `maxLength` pieces drawn from `pieces` (any length up to it, not fast-check's usual small ones), short enough for the quadratic references. */
const textOf = (pieces: readonly string[], maxLength = 60): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...pieces), { maxLength, size: 'max' }).map((xs) => xs.join(''));
const RUNS = { numRuns: 2000 };

describe('rewrites give what the expressions they replace gave', () => {
  it('isSpace is \\s, for every UTF-16 unit', () => {
    for (let c = 0; c < 65536; c++) expect(isSpace(c), `U+${c.toString(16)}`).toBe(/\s/.test(String.fromCharCode(c)));
  });

  it('clauseCuts: the offsets of /\\s*(?:<contrast>)/gi', () => {
    const old = /\s*(?:[,;:]\s*(?:and|but|however|whereas|while|although|though|yet)\b|;|\s(?:but|whereas)\s)/gi;
    const pieces = [
      ' ',
      '  ',
      '\t',
      '\u00a0',
      '\u3000',
      '\n',
      ',',
      ';',
      ':',
      'and',
      'but',
      'BUT',
      'however',
      'whereas',
      'while',
      'although',
      'though',
      'yet',
      'x',
      'Acme',
      'butter',
      '.',
    ];
    fc.assert(
      fc.property(textOf(pieces), (s) => {
        expect(clauseCuts(s)).toEqual([...s.matchAll(old)].map((m) => m.index));
      }),
      RUNS,
    );
  });

  it('linkTexts: s.replace(/\\[([^\\]]*)\\]\\([^)]*\\)/g, "$1")', () => {
    fc.assert(
      fc.property(textOf(['[', ']', '(', ')', '](', 'a', 'b ', ' ']), (s) => {
        expect(linkTexts(s)).toBe(s.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1'));
      }),
      RUNS,
    );
  });

  it('withoutTrailingPunctuation: url.replace(/[.,;:!?*_]+$/, "")', () => {
    fc.assert(
      fc.property(textOf(['.', ',', ';', ':', '!', '?', '*', '_', 'a', '/', '-', ')']), (s) => {
        expect(s.slice(0, withoutTrailingPunctuation(s))).toBe(s.replace(/[.,;:!?*_]+$/, ''));
      }),
      RUNS,
    );
  });

  it('withoutEndPunctuation: token.replace(/^[punct]+|[punct]+$/g, "") of the VADER port', () => {
    const old = /^[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~“”‘’…–—]+|[!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~“”‘’…–—]+$/g;
    const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
    fc.assert(
      fc.property(textOf([...ascii, '“', '”', '‘', '’', '…', '–', '—', '•', '‐', 'é', '😀'], 20), (s) => {
        expect(withoutEndPunctuation(s)).toBe(s.replace(old, ''));
      }),
      RUNS,
    );
  });

  it('RANK_CELL finds the rank /^\\|[ \\t*_]*#?[ \\t]*(\\d{1,3})(?:\\.|st|nd|rd|th)?[ \\t*_]*\\|/ found', () => {
    const old = /^\|[ \t*_]*#?[ \t]*(\d{1,3})(?:\.|st|nd|rd|th)?[ \t*_]*\|/;
    fc.assert(
      fc.property(textOf(['|', ' ', '\t', '*', '_', '#', '1', '2', '0', '.', 'st', 'th', 'x'], 14), (s) => {
        const line = `|${s}`;
        expect(RANK_CELL.exec(line)?.[1]).toBe(old.exec(line)?.[1]);
      }),
      RUNS,
    );
  });

  it('chainsIn: what matchAll of the same expression under /gu finds', () => {
    const old = new RegExp(CHAIN_RE.source, 'gu');
    const pieces = [
      'Acme',
      'Foo',
      'A',
      'Aa',
      'B.',
      'a',
      'x',
      ' ',
      ', ',
      ',',
      ' and ',
      ' or ',
      ' vs. ',
      ' versus ',
      '/',
      ' & ',
      '.',
      '-',
      "'",
      '+',
      'É',
      '×',
      '9',
      '\n',
      '  ',
    ];
    fc.assert(
      fc.property(textOf(pieces), (s) => {
        expect([...chainsIn(s)]).toEqual([...s.matchAll(old)].map((m) => ({ index: m.index, text: m[0] })));
      }),
      RUNS,
    );
  });

  it('tokensOf: the walks to a token’s ends and its dot test, however the offsets are asked', () => {
    const word = (t: string, i: number): boolean => i >= 0 && i < t.length && IS_WORD[t.charCodeAt(i)] === 1;
    const joins = (t: string, i: number): boolean => t[i] === '.' || t[i] === '-';
    fc.assert(
      fc.property(
        textOf(['a', 'B', '1', '.', '-', ' ', 'é', '😀', '_', '..']),
        fc.array(fc.nat(), { maxLength: 30 }),
        (s, asks) => {
          const tokens = tokensOf(s);
          for (const ask of asks) {
            const at = ask % (s.length + 1);
            let l = at;
            while (l > 0 && (word(s, l - 1) || (joins(s, l - 1) && word(s, l - 2)))) l--;
            let r = at;
            while (r < s.length && (word(s, r) || (joins(s, r) && word(s, r + 1)))) r++;
            expect(tokens.left(at)).toBe(l);
            expect(tokens.right(at)).toBe(r);
            expect(tokens.dotted(l, r)).toBe(/[\p{L}\p{N}]\.[\p{L}\p{N}]/u.test(s.slice(l, r)));
          }
        },
      ),
      RUNS,
    );
  });

  it('tokensOf: the same on tokens long enough for its kept walks', () => {
    const word = (t: string, i: number): boolean => i >= 0 && i < t.length && IS_WORD[t.charCodeAt(i)] === 1;
    const joins = (t: string, i: number): boolean => t[i] === '.' || t[i] === '-';
    fc.assert(
      fc.property(
        textOf(['aaaaaaaaaaaaaaaaaaaa', 'bb', '.', '-', ' ', '..', '-.'], 40),
        fc.array(fc.nat(), { maxLength: 40 }),
        (s, asks) => {
          const tokens = tokensOf(s);
          for (const ask of asks) {
            const at = ask % (s.length + 1);
            let l = at;
            while (l > 0 && (word(s, l - 1) || (joins(s, l - 1) && word(s, l - 2)))) l--;
            let r = at;
            while (r < s.length && (word(s, r) || (joins(s, r) && word(s, r + 1)))) r++;
            expect(tokens.left(at)).toBe(l);
            expect(tokens.right(at)).toBe(r);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('TokenView.exclaimed: whether the first sentence end at or after a token is a "!", in short texts and long', () => {
    const pieces = ['good ', 'free ', 'Acme ', 'x ', '. ', '! ', '? ', 'great! ', 'bad. ', 'ok? ', '; ', ', '];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 300, size: 'max' }), (parts) => {
        let seen = false;
        const vader = createVader({
          adjust: (t) => {
            seen = true;
            for (let i = 0; i < t.ends.length; i++) {
              let expected = false;
              for (let j = i; j < t.ends.length; j++) {
                if (((t.ends[j] ?? 0) & END_SENTENCE) !== 0) {
                  expected = ((t.ends[j] ?? 0) & END_BANG) !== 0;
                  break;
                }
              }
              expect(t.exclaimed(i)).toBe(expected);
            }
          },
        });
        vader.score(parts.join(''));
        return seen || !parts.some((p) => p.startsWith('good') || p.startsWith('great') || p.startsWith('bad'));
      }),
      { numRuns: 500 },
    );
  });

  it('lineStarts and linesOf: lastIndexOf("\\n") and /^\\s*(?:\\d{1,3}[.)]|[-*+•])\\s+$/ on the line up to the offset', () => {
    const listHead = /^\s*(?:\d{1,3}[.)]|[-*+•])\s+$/;
    fc.assert(
      fc.property(
        textOf(['\n', ' ', '\t', '\u3000', '1', '12', '1234', '.', ')', '-', '*', '+', '•', 'x', 'Notion']),
        fc.array(fc.nat(), { maxLength: 30 }),
        (s, asks) => {
          const startOf = lineStarts(s);
          const lines = linesOf(s);
          for (const ask of asks) {
            const at = ask % (s.length + 1);
            const expected = s.lastIndexOf('\n', at - 1) + 1;
            if (s[at] !== '\n') expect(startOf(at)).toBe(s.lastIndexOf('\n', at) + 1);
            if (s[at] === '\n' || at === s.length) continue;
            expect(lines.startOf(at)).toBe(expected);
            expect(lines.listHead(expected, at)).toBe(listHead.test(s.slice(expected, at)));
          }
        },
      ),
      RUNS,
    );
  });

  it('spanAt: the span holding an offset, found by binary search', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 5 })), { maxLength: 20 }),
        fc.nat(120),
        (gaps, at) => {
          const spans: UrlSpan[] = [];
          let end = 0;
          for (const [gap, length] of gaps) {
            const start = end + gap;
            end = start + length;
            spans.push({ start, end, hostStart: start, hostEnd: end });
          }
          expect(spanAt(spans, at)).toBe(spans.find((s) => at >= s.start && at < s.end) ?? null);
        },
      ),
      RUNS,
    );
  });
});
