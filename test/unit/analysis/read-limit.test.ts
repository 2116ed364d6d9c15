import { describe, expect, it } from 'vitest';
import { ANALYSIS_MAX_CHARS } from '../../../src/analysis/index.ts';
import { readEnd } from '../../../src/analysis/analyse.ts';
import { facts } from './helpers.ts';

/** Analysis reads a bounded prefix of an answer, and its facts say how much (docs/analysis.md "What analysis reads"). */

const filler = (chars: number): string => 'plain words here '.repeat(Math.ceil(chars / 17)).slice(0, chars);

describe('what analysis reads', () => {
  it('reads the whole of an answer up to the cap, and says so', () => {
    const text = `${filler(ANALYSIS_MAX_CHARS - 20)} Acme is named.`;
    expect(text.length).toBeLessThanOrEqual(ANALYSIS_MAX_CHARS);
    const f = facts(text);
    expect(f.mentioned).toBe(true);
    expect(f.analysis).toEqual({ readChars: text.length, truncated: false, timedOut: false });
  });

  it('does not read past the cap: a brand named only after it is not mentioned, and the facts say the text was cut', () => {
    const text = `Foo is first. ${filler(ANALYSIS_MAX_CHARS)} Acme is named only here.`;
    const f = facts(text);
    expect(f.mentioned).toBe(false);
    expect(f.verdict).toBe('lost');
    expect(f.brands.map((b) => b.name)).toEqual(['Foo Cloud']);
    expect(f.analysis.truncated).toBe(true);
    expect(f.analysis.timedOut).toBe(false);
    expect(f.analysis.readChars).toBeLessThanOrEqual(ANALYSIS_MAX_CHARS);
    expect(f.analysis.readChars).toBeGreaterThan(ANALYSIS_MAX_CHARS - 1000);
  });

  it('still reads what comes before the cap: citations, brands, tone', () => {
    const text = `Acme is excellent. ${filler(2 * ANALYSIS_MAX_CHARS)}`;
    const f = facts(text, [{ url: 'https://acme.com/pricing' }]);
    expect(f).toMatchObject({ verdict: 'cited', mentioned: true, tone: 'positive', analysis: { truncated: true } });
  });

  it('cuts at white space, so no word is cut into a name ("Acmeville" is not "Acme")', () => {
    const text = `${'x'.repeat(ANALYSIS_MAX_CHARS - 5)} Acmeville and more`;
    // Cut at the cap itself, the text would end in "Acme".
    expect(text.slice(ANALYSIS_MAX_CHARS - 4, ANALYSIS_MAX_CHARS)).toBe('Acme');
    const f = facts(text);
    expect(f.mentioned).toBe(false);
    expect(f.analysis.readChars).toBe(ANALYSIS_MAX_CHARS - 5);
  });

  it('without white space near the cap, cuts at the cap but never inside a surrogate pair', () => {
    expect(readEnd('a'.repeat(ANALYSIS_MAX_CHARS + 5))).toBe(ANALYSIS_MAX_CHARS);
    const emoji = `${'a'.repeat(ANALYSIS_MAX_CHARS - 1)}😀${'a'.repeat(10)}`;
    expect(emoji.charCodeAt(ANALYSIS_MAX_CHARS - 1)).toBeGreaterThanOrEqual(0xd800);
    expect(readEnd(emoji)).toBe(ANALYSIS_MAX_CHARS - 1);
    expect(facts(emoji).analysis.readChars).toBe(ANALYSIS_MAX_CHARS - 1);
  });

  it('reads nothing of a failed answer', () => {
    expect(facts('   ').analysis).toEqual({ readChars: 0, truncated: false, timedOut: false });
  });
});
