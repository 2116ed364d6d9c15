import { describe, expect, it } from 'vitest';
import vader from 'vader-sentiment';
import { createVader } from '../../../src/analysis/vader.ts';
import { facts } from './helpers.ts';

const plainVader = createVader();

describe('tone', () => {
  it.each([
    ['positive word', 'Acme is excellent.', 'positive'],
    ['negative word', 'Acme is terrible.', 'negative'],
    ['no opinion', 'Acme was founded in 2015.', 'neutral'],
    ['negation flips', 'Acme is not good.', 'negative'],
    ['negation of a negative', 'Acme is not bad at all.', 'positive'],
    ['contraction negation', "Acme isn't reliable.", 'negative'],
    ['product word', 'Acme is affordable.', 'positive'],
    ['product word negative', 'Acme is overpriced.', 'negative'],
    ['product phrase', 'Acme has a steep learning curve.', 'negative'],
    ['product phrase positive', 'Acme is easy to use.', 'positive'],
    ['but: the second clause wins', 'Acme is cheap, but it is terrible.', 'negative'],
    ['but: the second clause wins, reversed', 'Acme is a bit slow, but it is excellent.', 'positive'],
    ['however weighs like but', 'Acme is nice; however, it is unreliable and buggy.', 'negative'],
    ['leading although clause weighs less', 'Although Acme is expensive, it is excellent.', 'positive'],
    ['contrast with another brand scores own clause', 'Foo is excellent, but Acme is terrible.', 'negative'],
    ['contrast with another brand, reversed', 'Foo is terrible, whereas Acme is excellent.', 'positive'],
    ['shared clause scores the whole sentence', 'Acme and Foo are both excellent.', 'positive'],
    ['brand name words do not score', 'Acme products are sold at Best Buy.', 'neutral'],
  ])('%s', (_rule, text, tone) => {
    expect(facts(text).tone).toBe(tone);
  });

  it.each([
    ['intensifier raises the score', 'Acme is good.', 'Acme is very good.'],
    ['capitals raise the score', 'Acme is good, truly.', 'Acme is GOOD, truly.'],
    ['exclamation raises the score', 'Acme is good.', 'Acme is good!'],
  ])('%s', (_rule, weaker, stronger) => {
    expect(facts(stronger).toneScore ?? 0).toBeGreaterThan(facts(weaker).toneScore ?? 0);
  });

  it('dampener lowers the score', () => {
    expect(facts('Acme is slightly good.').toneScore ?? 0).toBeLessThan(facts('Acme is good.').toneScore ?? 0);
  });

  it('tone, score and quote are null when the brand is not named', () => {
    expect(facts('Foo is excellent.')).toMatchObject({ tone: null, toneScore: null, quote: null });
  });

  it('quotes the sentence that carries the tone', () => {
    const f = facts('Acme was founded in 2015. Many say Acme is excellent and reliable. Foo is older.');
    expect(f.quote).toBe('Many say Acme is excellent and reliable.');
  });

  it('quotes without markdown', () => {
    expect(facts('1. **Acme** is excellent.').quote).toBe('Acme is excellent.');
  });

  it('scores in [-1, 1]', () => {
    const f = facts('Acme is the BEST!!! Absolutely AMAZING, wonderful, perfect, superb!!!');
    expect(f.toneScore).toBeLessThanOrEqual(1);
    expect(f.toneScore).toBeGreaterThan(0.7);
  });

  it('averages the sentences that name the brand', () => {
    const f = facts('Acme is excellent. Acme is terrible.');
    expect(Math.abs(f.toneScore ?? 1)).toBeLessThan(0.2);
  });

  it.each([
    'VADER is smart, handsome, and funny.',
    'VADER is very smart, handsome, and funny.',
    'VADER is VERY SMART, handsome, and FUNNY!!!',
    'VADER is not smart, handsome, nor funny.',
    'The book was good.',
    "At least it isn't a horrible book.",
    'The book was only kind of good.',
    'The plot was good, but the characters are uncompelling and the dialog is not great.',
    'Today SUX!',
    'Make sure you :) or :D today!',
  ])('the VADER port agrees with vader-sentiment on "%s"', (text) => {
    expect(plainVader.score(text)).toBeCloseTo(vader.SentimentIntensityAnalyzer.polarity_scores(text).compound, 2);
  });
});
