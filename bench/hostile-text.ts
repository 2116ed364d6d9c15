/**
 * Hostile answer texts (issue 24): how long one analysis of each takes.
 * Run: node bench/hostile-text.ts [case ...]  (every case when none named)
 *
 * An assistant can be made to answer nearly anything, and imports bring any
 * text, so analysis must take time linear in what it reads. Each case is a
 * text that once made some part of src/analysis super-linear (the part is
 * named); most are built just under the analysis cap (ANALYSIS_MAX_CHARS),
 * so they measure the analysis and not the cap. The `review-*` cases are the
 * security review's own 200 KB inputs. test/unit/analysis/hostile-text.test.ts
 * holds a deadline for each.
 */
import { analyse, compileBrandBook, type AnswerInput } from '../src/analysis/index.ts';

/** Characters of each text (BENCH_HOSTILE_CHARS; the `review-*` cases keep their 200 KB). */
const N = Number(process.env.BENCH_HOSTILE_CHARS ?? 99_000);
const REVIEW = 200 * 1024;

const book = compileBrandBook({
  name: 'Acme',
  brandTerms: ['Acme Corp', 'Acme.io'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Foo Cloud', aliases: ['Foo'], domain: 'foo.io' },
    { id: 2, name: 'Notion', aliases: [], domain: 'notion.so' },
    { id: 3, name: 'Bar Labs', aliases: ['HP'], domain: null },
  ],
});

/** `unit` repeated to about `chars` characters. */
function fill(unit: string, chars = N): string {
  return unit.repeat(Math.max(1, Math.floor(chars / unit.length)));
}

/** Distinct coined names ("Kab", "Kac", ...), so every list head is a new suggestion. */
function coined(i: number): string {
  let s = '';
  for (let n = i + 26 * 26; n > 0; n = Math.floor(n / 26)) s = String.fromCharCode(97 + (n % 26)) + s;
  return `K${s}`;
}

interface HostileCase {
  name: string;
  /** the code that was super-linear on it */
  where: string;
  answer: () => AnswerInput;
}

const text =
  (t: string): (() => AnswerInput) =>
  () => ({ text: t, citations: [], failed: false });

const CASES: HostileCase[] = [
  // The review's input: "Acme is good", 200 KB of white space, then any other character, in one sentence.
  { name: 'review-spaces', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${' '.repeat(REVIEW)}x`) },
  { name: 'review-tabs', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${'\t'.repeat(REVIEW)}x`) },
  { name: 'review-nbsp', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${'\u00a0'.repeat(REVIEW)}x`) },
  {
    name: 'review-ideographic',
    where: 'sentiment.ts CONTRAST',
    answer: text(`Acme is good${'\u3000'.repeat(REVIEW)}`),
  },
  { name: 'contrast-spaces', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${' '.repeat(N)}x`) },
  { name: 'contrast-tabs', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${'\t'.repeat(N)}x`) },
  { name: 'contrast-nbsp', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${'\u00a0'.repeat(N)}x`) },
  { name: 'contrast-ideographic', where: 'sentiment.ts CONTRAST', answer: text(`Acme is good${'\u3000'.repeat(N)}`) },
  {
    name: 'link-brackets',
    where: 'sentiment.ts plainForScoring, markdown link',
    answer: text(`Acme is good ${'['.repeat(N)}`),
  },
  {
    name: 'link-unclosed',
    where: 'sentiment.ts plainForScoring, markdown link',
    answer: text(`Acme is good ${fill('[a](')}`),
  },
  {
    name: 'url-trailing-dots',
    where: 'urls.ts trailing punctuation',
    answer: text(`Acme at https://x.io/${'.'.repeat(N)}x`),
  },
  { name: 'table-rank-cell', where: 'lists.ts RANK_CELL', answer: text(`Acme and Foo\n|${' '.repeat(N)}x|`) },
  {
    name: 'inline-lists-lines',
    where: 'inline-lists.ts sentenceEnd',
    answer: text(`Acme and Foo.\n${fill('1) a 2) b\n')}`),
  },
  {
    name: 'inline-lists-one-line',
    where: 'inline-lists.ts sentenceEnd, candidateLines',
    answer: text(`Acme and Foo ${fill('1) a 2) a ')}`),
  },
  { name: 'hyphen-token', where: 'mentions.ts nameFits', answer: text(fill('Acme-')) },
  { name: 'dotted-token', where: 'mentions.ts nameFits', answer: text(fill('Acme.')) },
  { name: 'capitals-sentence', where: 'casing.ts allCapitalsAround', answer: text(fill('NOTION ')) },
  { name: 'sentence-starts-one-line', where: 'mentions.ts marked (line start)', answer: text(`x ${fill('Notion. ')}`) },
  {
    name: 'list-head-indent',
    where: 'mentions.ts marked (LIST_HEAD)',
    answer: text(`${' '.repeat(N / 2)}${fill('Notion. ', N / 2)}`),
  },
  { name: 'urls-and-domains', where: 'urls.ts spanAt', answer: text(fill('https://a.io acme.com ')) },
  { name: 'brand-sentences', where: 'sentiment.ts namesWithin', answer: text(fill('Acme. ')) },
  { name: 'brand-clauses', where: 'sentiment.ts brandClause', answer: text(`Acme; ${fill('Foo; ')}`) },
  { name: 'contrast-sentences', where: 'sentiment.ts brandClause', answer: text(fill('Acme, but Foo. ')) },
  { name: 'punctuation-token', where: 'vader.ts PUNCT', answer: text(`Acme is good x${'!'.repeat(N)}x!`) },
  { name: 'phrases', where: 'vader.ts joinPhrases', answer: text(`Acme ${fill('steep learning curve ')}`) },
  { name: 'factual-words', where: 'vader.ts exclaimed, evaluative.ts', answer: text(`Acme is ${fill('free ')}`) },
  { name: 'capital-run', where: 'suggestions.ts CHAIN_RE', answer: text(`Acme, Foo. ${'A'.repeat(N)} x`) },
  { name: 'capital-alternating', where: 'suggestions.ts CHAIN_RE', answer: text(`Acme, Foo. ${fill('Aa')} x`) },
  { name: 'capital-dotted', where: 'suggestions.ts CHAIN_RE', answer: text(`Acme, Foo. ${fill('A.')}x`) },
  {
    name: 'many-list-heads',
    where: 'suggestions.ts add, overlaps',
    answer: () => {
      let t = '- Acme\n';
      for (let i = 0; t.length < N; i++) t += `- ${coined(i)}\n`;
      return { text: t, citations: [], failed: false };
    },
  },
  {
    name: 'citation-slashes',
    where: 'citations.ts trailing slashes',
    answer: () => ({ text: 'Acme', citations: [{ url: `https://acme.com/${'/'.repeat(N)}x/` }], failed: false }),
  },
];

function fmt(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(0);
}

/** CPU milliseconds of this process (the machine is shared: CPU time moves less than wall time under load). */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

{
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((w) => !CASES.some((c) => c.name === w));
  if (unknown.length)
    throw new Error(`no case named ${unknown.join(', ')}; have: ${CASES.map((c) => c.name).join(', ')}`);
  // Each case once, then again twice if the first took under 5 s (the best of those: the first pays for compiling).
  console.log(
    `hostile-text benchmark  node ${process.version}  one analyse() of each text: wall ms and CPU ms, best of up to 3 runs`,
  );
  for (const c of CASES) {
    if (wanted.length && !wanted.includes(c.name)) continue;
    const answer = c.answer();
    let wall = Infinity;
    let cpu = Infinity;
    let verdict = '';
    for (let run = 0; run < 3 && (run === 0 || wall < 5000); run++) {
      const c0 = cpuMs();
      const t0 = performance.now();
      verdict = analyse(answer, book).verdict;
      wall = Math.min(wall, performance.now() - t0);
      cpu = Math.min(cpu, cpuMs() - c0);
    }
    console.log(
      `${c.name.padEnd(26)} ${String(answer.text?.length ?? 0).padStart(7)} chars ${fmt(wall).padStart(8)} ms ${fmt(cpu).padStart(8)} ms CPU  (${c.where}; verdict ${verdict})`,
    );
  }
}
