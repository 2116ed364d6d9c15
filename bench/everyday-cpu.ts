/**
 * The analysis benchmark's everyday-name figures (bench/analysis.ts "[everyday names]") in CPU time rather
 * than wall time, to compare two versions of the code on a loaded machine, where wall-clock rates swing
 * several-fold between neighbouring runs (bench/README.md "analysis: everyday-word names"):
 *   node bench/everyday-cpu.ts [root]
 * `root` is the checkout whose src/analysis is measured (default: this one), so two checkouts run the same
 * inputs: alternate their runs. Each figure is the least CPU time (user + system, process.cpuUsage) of 60
 * rounds of 100 answers, the four sets interleaved within the process. Same seeded inputs as bench/analysis.ts.
 */
import type * as Analysis from '../src/analysis/index.ts';
import type * as Mentions from '../src/analysis/mentions.ts';
import type { AnswerInput, BrandBookInput } from '../src/analysis/index.ts';

const ROOT = process.argv[2] ?? new URL('..', import.meta.url).pathname;
const { analyse, compileBrandBook } = (await import(`${ROOT}/src/analysis/index.ts`)) as typeof Analysis;
const { explainAmbiguous } = (await import(`${ROOT}/src/analysis/mentions.ts`)) as typeof Mentions;
type BrandBook = ReturnType<typeof compileBrandBook>;
let seed = 42;
function rand(): number {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function pick<T>(xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)] as T;
}
const SYL = [
  'ka',
  'lo',
  'vi',
  'zen',
  'tra',
  'mo',
  'rex',
  'qua',
  'nix',
  'bel',
  'dor',
  'fy',
  'lum',
  'sor',
  'ta',
  'gri',
  'pex',
  'ul',
  'ven',
  'cor',
];
function coined(): string {
  const n = 2 + Math.floor(rand() * 2);
  let w = '';
  for (let i = 0; i < n; i++) w += pick(SYL);
  return w[0]?.toUpperCase() + w.slice(1);
}
const SUFFIX = ['Cloud', 'HQ', 'Suite', 'Pro', 'App', 'Labs', 'AI', 'Works', 'Hub', 'Go'];

function makeBook(competitors: number, aliasesEach: number): BrandBookInput {
  const used = new Set<string>();
  const unique = (make: () => string): string => {
    for (;;) {
      const n = make();
      if (!used.has(n.toLowerCase())) {
        used.add(n.toLowerCase());
        return n;
      }
    }
  };
  const list = [];
  for (let id = 1; id <= competitors; id++) {
    const name = unique(coined);
    const aliases: string[] = [];
    while (aliases.length < aliasesEach - 1)
      aliases.push(unique(() => (rand() < 0.5 ? `${name} ${pick(SUFFIX)}${aliases.length}` : coined())));
    list.push({ id, name, aliases, domain: `${name.toLowerCase()}.com` });
  }
  return { name: 'Acme', brandTerms: ['Acme Corp', 'AcmeCloud'], domain: 'acme.com', competitors: list };
}

const WORDS =
  'the a tool for teams that helps with planning tracking and reporting many users say it is reliable easy to use but some find pricing high support is responsive integrations include calendars chat and storage it offers a free plan with limits'.split(
    ' ',
  );
const HOSTS = [
  'reddit.com',
  'en.wikipedia.org',
  'g2.com',
  'techcrunch.com',
  'youtube.com',
  'example.org',
  'medium.com',
  'capterra.com',
];

function makeAnswers(book: BrandBookInput, count: number): AnswerInput[] {
  const answers: AnswerInput[] = [];
  const names = book.competitors.flatMap((c) => [c.name, ...c.aliases]);
  for (let a = 0; a < count; a++) {
    let text = 'Here are some options worth comparing:\n\n';
    let item = 1;
    while (text.length < 2000) {
      const brand = rand() < 0.2 ? 'Acme' : pick(names);
      text += `${item++}. **${brand}**: `;
      for (let i = 0; i < 22; i++) text += `${pick(WORDS)} `;
      text = `${text.trimEnd()}. Compared with ${pick(names)}, it is simpler.\n`;
    }
    text = text.slice(0, 2048);
    const citations = Array.from({ length: 10 }, (_, i) => ({
      url:
        i === 0 && rand() < 0.3
          ? 'https://www.acme.com/pricing?utm_source=chatgpt.com'
          : `https://www.${pick(HOSTS)}/page/${a}-${i}?utm_source=x&id=${i}`,
      title: `Source ${i}`,
    }));
    answers.push({ text, citations, failed: false });
  }
  return answers;
}

const main = makeBook(50, 30);
const answers = makeAnswers(main, 500);

const EVERYDAY = ['Notion', 'Square', 'Apple', 'Mercury', 'Robin', 'Chase', 'Amazon', 'June', 'Zoom', 'Slack'];
const everydayBook: BrandBookInput = {
  ...main,
  name: 'Monday',
  brandTerms: ['monday.com'],
  domain: 'monday.com',
  competitors: main.competitors.map((c, i) =>
    i < EVERYDAY.length ? { ...c, name: EVERYDAY[i] as string, aliases: c.aliases.slice(0, 5) } : c,
  ),
};
const SENTENCES = [
  (n: string) => `${n} is a solid pick for small teams.`,
  (n: string) => `Many agencies moved to ${n} last year and kept it.`,
  (_n: string) => `Plan the week on Monday morning, before client calls.`,
  (_n: string) => `The notion of a single source of truth matters more than the tool.`,
  (_n: string) => `Teams chase deadlines in June and slack off in August.`,
  (n: string) => `Compared with ${n}, it is simpler to set up.`,
  (_n: string) => `An apple a day, as the saying goes, and a square meal.`,
  (n: string) => `**${n}** – boards, automations and dashboards.`,
];
function withEveryday(
  answers: readonly AnswerInput[],
  names: readonly string[],
  share: number,
): { answers: AnswerInput[]; holding: number } {
  let holding = 0;
  const out = answers.map((a, i) => {
    if ((i * 7919) % 100 >= share * 100) return a;
    holding++;
    let extra = '\n';
    for (let k = 0; k < 3; k++)
      extra += `${(SENTENCES[(i + k) % SENTENCES.length] as (n: string) => string)(names[(i + k) % names.length] as string)} `;
    return { ...a, text: `${a.text ?? ''}${extra}` };
  });
  return { answers: out, holding };
}
const ambiguousBook = compileBrandBook(everydayBook);
const coinedBook = compileBrandBook({
  ...everydayBook,
  name: 'Zyqa',
  domain: 'zyqa.com',
  brandTerms: [],
  competitors: everydayBook.competitors.map((c, i) => (i < EVERYDAY.length ? { ...c, name: `Qo${c.name}x` } : c)),
});
const mixed = withEveryday(answers, ['Monday', ...EVERYDAY], 0.35);
const onlyAmbiguous = withEveryday(answers, ['Monday', ...EVERYDAY], 1).answers;
const onlyCoined = withEveryday(answers, EVERYDAY.map((n) => `Qo${n}x`).concat('Zyqa'), 1).answers;
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
