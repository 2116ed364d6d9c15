/**
 * Sentiment evaluation (docs/analysis.md, Sentiment): Sightline's tone beside
 * the vader-sentiment package on the project's labelled brand sentences
 * (test/fixtures/sentiment) and on the two public human-rated VADER sets
 * (vader-ground-truth.ts). Imported by sentiment-evaluation.test.ts; run
 * alone to print the table copied into docs/analysis.md:
 *   node test/unit/analysis/sentiment-evaluation.ts
 */
import vader from 'vader-sentiment';
import fixture from '../../fixtures/sentiment/brand-sentences.json' with { type: 'json' };
import { analyse, compileBrandBook, toneOf, type Tone } from '../../../src/analysis/index.ts';
import { scoreSentence } from '../../../src/analysis/sentiment.ts';
import { toneFigures, type ToneFigures } from './tone-metrics.ts';
import { loadRated, PUBLIC_SETS, publicSetsPresent } from './vader-ground-truth.ts';

export interface Labelled {
  text: string;
  brand: string;
  others: string[];
  label: Tone;
}

export const SENTENCES = fixture.sentences as Labelled[];

export const PACKAGE = 'vader-sentiment package';
export const SIGHTLINE = 'Sightline';

export interface Row {
  set: string;
  approach: string;
  figures: ToneFigures;
}

function packageTone(text: string): Tone {
  return toneOf(vader.SentimentIntensityAnalyzer.polarity_scores(text).compound);
}

/** The brand's tone in an answer made of the sentence, with the other brands tracked as competitors. */
function brandTone(s: Labelled): Tone {
  const book = compileBrandBook({ name: s.brand, brandTerms: [], domain: 'example.com', competitors: s.others.map((name, i) => ({ id: i + 1, name, aliases: [], domain: null })) });
  return analyse({ text: s.text, citations: [], failed: false }, book).tone ?? 'neutral';
}

export function evaluateOwnSet(): Row[] {
  const set = 'own brand sentences';
  return [
    { set, approach: PACKAGE, figures: toneFigures(SENTENCES.map((s) => ({ label: s.label, predicted: packageTone(s.text) }))) },
    { set, approach: SIGHTLINE, figures: toneFigures(SENTENCES.map((s) => ({ label: s.label, predicted: brandTone(s) }))) },
  ];
}

/**
 * The public snippets are about no brand: the whole snippet is the subject,
 * so it is scored as one text, every word of it counting as about the
 * subject (no brand clause), with the same word rules as brand sentences.
 */
export function evaluatePublicSets(): Row[] {
  const rows: Row[] = [];
  for (const { name, file } of PUBLIC_SETS) {
    const snippets = loadRated(file);
    rows.push({ set: name, approach: PACKAGE, figures: toneFigures(snippets.map((s) => ({ label: s.label, predicted: packageTone(s.text) }))) });
    rows.push({ set: name, approach: SIGHTLINE, figures: toneFigures(snippets.map((s) => ({ label: s.label, predicted: toneOf(scoreSentence(s.text)) }))) });
  }
  return rows;
}

/**
 * What reaching twice the package's neutral recall by a wider neutral band
 * (|compound| under a cut, instead of 0.05) would cost each scorer: the
 * narrowest cut that reaches it, with the figures there. Printed only, for
 * docs/analysis.md: Sightline's rules keep VADER's cut.
 */
export function widerBandCost(): { set: string; approach: string; cut: number; figures: ToneFigures }[] {
  const out: { set: string; approach: string; cut: number; figures: ToneFigures }[] = [];
  for (const { name, file } of PUBLIC_SETS) {
    const snippets = loadRated(file);
    const scores = {
      [PACKAGE]: snippets.map((s) => vader.SentimentIntensityAnalyzer.polarity_scores(s.text).compound),
      [SIGHTLINE]: snippets.map((s) => scoreSentence(s.text)),
    };
    const target = 2 * toneFigures(snippets.map((s, i) => ({ label: s.label, predicted: toneOf(scores[PACKAGE][i] ?? 0) }))).recall.neutral;
    for (const [approach, values] of Object.entries(scores)) {
      for (let hundredths = 5; hundredths <= 90; hundredths++) {
        const cut = hundredths / 100;
        const figures = toneFigures(
          snippets.map((s, i) => {
            const v = values[i] ?? 0;
            return { label: s.label, predicted: v >= cut ? 'positive' : v <= -cut ? 'negative' : 'neutral' };
          }),
        );
        if (figures.recall.neutral >= target) {
          out.push({ set: name, approach, cut, figures });
          break;
        }
      }
    }
  }
  return out;
}

function printTable(rows: readonly Row[]): void {
  console.log('| set | approach | items | accuracy | positive | neutral | negative | macro-F1 |\n|---|---|---|---|---|---|---|---|');
  for (const { set, approach, figures: f } of rows) {
    console.log(`| ${set} | ${approach} | ${f.total} | ${f.accuracy}% | ${f.recall.positive}% | ${f.recall.neutral}% | ${f.recall.negative}% | ${f.macroF1}% |`);
  }
}

if (process.argv[1]?.endsWith('sentiment-evaluation.ts')) {
  const rows = evaluateOwnSet();
  if (publicSetsPresent()) rows.push(...evaluatePublicSets());
  else console.log('(public VADER sets not found: set SIGHTLINE_VADER_GROUND_TRUTH)\n');
  printTable(rows);
  if (publicSetsPresent()) {
    console.log("\nA wider neutral band reaching twice the package's neutral recall would cost:\n");
    printTable(widerBandCost().map((r) => ({ set: r.set, approach: `${r.approach}, neutral band ±${r.cut}`, figures: r.figures })));
  }
}
