/**
 * Sentiment evaluation (issue 4, point 6) over test/fixtures/sentiment.
 * Imported by sentiment-evaluation.test.ts; run alone to print the table
 * copied into docs/analysis.md: node test/unit/analysis/sentiment-evaluation.ts
 */
import Sentiment from 'sentiment';
import vader from 'vader-sentiment';
import fixture from '../../fixtures/sentiment/brand-sentences.json' with { type: 'json' };
import lexicon from '../../../src/analysis/sentiment-lexicon.json' with { type: 'json' };
import { analyse, compileBrandBook, toneOf, type Tone } from '../../../src/analysis/index.ts';

export interface Labelled {
  text: string;
  brand: string;
  others: string[];
  label: Tone;
}

export const SENTENCES = fixture.sentences as Labelled[];

export type Approach = (s: Labelled) => Tone;

const afinn = new Sentiment();
const afinnExtras = Object.fromEntries(Object.entries(lexicon.words).map(([w, v]) => [w, Math.round(v * 1.25)]));

export const APPROACHES: Record<string, Approach> = {
  'AFINN-165 (sentiment)': (s) => {
    const score = afinn.analyze(s.text).score;
    return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
  },
  'AFINN-165 + product words': (s) => {
    const score = afinn.analyze(s.text, { extras: afinnExtras }).score;
    return score > 0 ? 'positive' : score < 0 ? 'negative' : 'neutral';
  },
  'VADER (vader-sentiment)': (s) => toneOf(vader.SentimentIntensityAnalyzer.polarity_scores(s.text).compound),
  'kept: VADER rules + product words + brand clause': (s) => {
    const book = compileBrandBook({ name: s.brand, brandTerms: [], domain: 'example.com', competitors: s.others.map((name, i) => ({ id: i + 1, name, aliases: [], domain: null })) });
    return analyse({ text: s.text, citations: [], failed: false }, book).tone ?? 'neutral';
  },
};

export interface Report {
  approach: string;
  accuracy: number;
  perClass: Record<Tone, number>;
  total: number;
}

export function evaluate(name: string, approach: Approach): Report {
  const hit: Record<Tone, number> = { positive: 0, neutral: 0, negative: 0 };
  const all: Record<Tone, number> = { positive: 0, neutral: 0, negative: 0 };
  for (const s of SENTENCES) {
    all[s.label]++;
    if (approach(s) === s.label) hit[s.label]++;
  }
  const total = SENTENCES.length;
  const right = hit.positive + hit.neutral + hit.negative;
  const ratio = (a: number, b: number): number => (b === 0 ? 0 : Math.round((1000 * a) / b) / 10);
  return {
    approach: name,
    accuracy: ratio(right, total),
    perClass: { positive: ratio(hit.positive, all.positive), neutral: ratio(hit.neutral, all.neutral), negative: ratio(hit.negative, all.negative) },
    total,
  };
}

if (process.argv[1]?.endsWith('sentiment-evaluation.ts')) {
  console.log(`| approach | accuracy | positive | neutral | negative |\n|---|---|---|---|---|`);
  for (const [name, approach] of Object.entries(APPROACHES)) {
    const r = evaluate(name, approach);
    console.log(`| ${r.approach} | ${r.accuracy}% | ${r.perClass.positive}% | ${r.perClass.neutral}% | ${r.perClass.negative}% |`);
  }
  console.log(`\n${SENTENCES.length} sentences`);
}
