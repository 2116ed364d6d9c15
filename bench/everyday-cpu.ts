/**
 * The analysis benchmark's everyday-name figures (bench/analysis.ts "[everyday names]") in CPU time rather
 * than wall time, to compare two versions of the code on a loaded machine, where wall-clock rates swing
 * several-fold between neighbouring runs (bench/README.md "analysis: everyday-word names"):
 *   node bench/everyday-cpu.ts [root]
 * `root` is the checkout whose src/analysis is measured (default: this one), so two checkouts run the same
 * inputs: alternate their runs. Each figure is the least CPU time (user + system, process.cpuUsage) of 60
 * rounds of 100 answers, the four sets interleaved within the process. Same seeded inputs as bench/analysis.ts
 * (bench/analysis-inputs.ts).
 */
import type * as Analysis from '../src/analysis/index.ts';
import type * as Mentions from '../src/analysis/mentions.ts';
import type { AnswerInput } from '../src/analysis/index.ts';
import { everydaySets, seededInputs } from './analysis-inputs.ts';

const ROOT = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const { analyse, compileBrandBook } = (await import(`${ROOT}/src/analysis/index.ts`)) as typeof Analysis;
const { explainAmbiguous } = (await import(`${ROOT}/src/analysis/mentions.ts`)) as typeof Mentions;
type BrandBook = ReturnType<typeof compileBrandBook>;
const { makeBook, makeAnswers } = seededInputs();
const main = makeBook(50, 30);
const answers = makeAnswers(main, 500);
const { everydayBook, coinedBook: coinedInput, mixed, onlyAmbiguous, onlyCoined } = everydaySets(main, answers);
const ambiguousBook = compileBrandBook(everydayBook);
const coinedBook = compileBrandBook(coinedInput);
let occurrences = 0;
for (const a of onlyAmbiguous.slice(0, 200)) occurrences += explainAmbiguous(a.text ?? '', ambiguousBook).length;
const perAnswer = occurrences / 200;

const sets: [string, BrandBook, readonly AnswerInput[]][] = [
  ['everyday', ambiguousBook, onlyAmbiguous],
  ['coined', coinedBook, onlyCoined],
  ['without', ambiguousBook, answers],
  ['throughput', compileBrandBook(main), answers],
];
const best = new Map<string, number>();
for (let i = 0; i < 200; i++) for (const [, book, set] of sets) analyse(set[i % set.length] as AnswerInput, book);
for (let r = 0; r < 60; r++)
  for (const [name, book, set] of sets) {
    const c0 = process.cpuUsage();
    for (let i = 0; i < 100; i++) analyse(set[(r * 100 + i) % set.length] as AnswerInput, book);
    const c = process.cpuUsage(c0);
    best.set(name, Math.min(best.get(name) ?? Infinity, (c.user + c.system) / 100));
  }
const us = (name: string): number => best.get(name) ?? 0;
const mixedShare = mixed.holding / answers.length;
console.log(
  JSON.stringify({
    bench: 'everyday-cpu',
    root: ROOT,
    cpuMicrosPerAnswer: {
      holdingEveryday: us('everyday'),
      sameWithCoinedNames: us('coined'),
      withoutEveryday: us('without'),
      throughputBook: us('throughput'),
    },
    occurrencesPerAnswer: perAnswer,
    readingMicrosPerOccurrence: (us('everyday') - us('coined')) / perAnswer,
    everydayMixShare: mixedShare,
    everydayMixAnswersPerCpuSecond: Math.round(1e6 / ((1 - mixedShare) * us('without') + mixedShare * us('everyday'))),
    throughputAnswersPerCpuSecond: Math.round(1e6 / us('throughput')),
  }),
);
