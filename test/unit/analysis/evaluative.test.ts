import { describe, expect, it } from 'vitest';
import { scoreSentence } from '../../../src/analysis/sentiment.ts';
import { createVader } from '../../../src/analysis/vader.ts';
import { facts } from './helpers.ts';

const tone = (text: string): string | null => facts(text).tone;

describe('tone: only evaluative words about the brand count', () => {
  it.each([
    ['a price stated as a fact', 'Acme offers a free tier.'],
    ['popularity stated as a fact', 'Acme is popular with agencies.'],
    ['a function', 'Acme supports single sign-on on higher plans.'],
    ['a pricing verb VADER reads as an accusation', 'Acme charges per seat.'],
    ['a security feature', 'Acme lists its security certifications.'],
    ['a product category', 'Acme is a CRM solution for small teams.'],
    ['a problem the brand handles', 'Acme helps teams prevent fraud and data breaches.'],
    ['"like" that compares', 'Tools like Acme sync files.'],
    ['an answer word opening the sentence', 'Yes, Acme exports CSV.'],
    ['a name made of evaluative words', 'Acme integrates with Smart Compose and Happy Scribe.'],
    ["praise in another brand's clause", 'Foo is the market leader, and Acme is a newer option.'],
  ])('neutral: %s', (_rule, text) => {
    expect(tone(text)).toBe('neutral');
  });

  it.each([
    ['a fact word with a booster', 'Acme is hugely popular with agencies.', 'positive'],
    ['a fact word exclaimed', 'Acme is free!', 'positive'],
    ['a fact word in capitals', 'Acme is FREE for students.', 'positive'],
    ['"like" as the verb', 'Users like Acme.', 'positive'],
    ['"I like", the "I" not being a scored word', 'I like Acme.', 'positive'],
    ['a missing good quality', 'Acme lacks reliable sync.', 'negative'],
    ['"fails to" and a good word', 'Acme fails to impress.', 'negative'],
    ['"hard to" and a good word', 'Acme is hard to recommend.', 'negative'],
    ['not lacking', "Acme doesn't lack features.", 'positive'],
    ['"too" and a word of no valence: an excess', 'Acme is too complex for beginners.', 'negative'],
    ['"too" and a bad word', 'Acme is too expensive for small teams.', 'negative'],
    ['"too good to": an excess', 'Acme is too good to be true.', 'negative'],
    ['"too" at the end means "also"', 'Acme is great too.', 'positive'],
    ['"not too" is left to negation', 'Acme is not too slow.', 'positive'],
    [
      'the problem handled does not hide a fault of the brand',
      "Acme's support rarely solves problems quickly.",
      'negative',
    ],
    ['a remedy verb without a problem keeps its sense', 'Avoid Acme.', 'negative'],
    ['praise of the brand in its own clause', 'Foo is old, and Acme is excellent.', 'positive'],
  ])('%s', (_rule, text, expected) => {
    expect(tone(text)).toBe(expected);
  });
});

describe('tone: the whole snippet as the subject (public sets)', () => {
  it.each([
    ["no word about the subject's worth", 'Pogoplug launches with 5 GB of free storage for mobile users.', 0],
    ['an evaluative word', 'The film is gripping from start to finish.', 1],
    ['a critique word VADER lacks', 'A tedious, lacklustre sequel.', -1],
  ])('%s', (_rule, text, sign) => {
    expect(Math.sign(scoreSentence(text))).toBe(sign);
  });
});

describe('VADER port: where it departs from the reference on purpose', () => {
  const plain = createVader();

  it('a negation does not reach into the next sentence', () => {
    expect(plain.score('Nope. I was wrong.')).toBeLessThan(0);
    expect(plain.score('Nothing happened! You suck.')).toBeLessThan(0);
  });

  it('a repeated "no" is not negated by the one before it', () => {
    expect(plain.score('No no no, not again.')).toBeLessThan(0);
    expect(plain.score('NO NO NO NO. This is bad.')).toBeLessThan(-0.5);
  });

  it('still negates within the sentence', () => {
    expect(plain.score('It was not good.')).toBeLessThan(0);
  });
});
