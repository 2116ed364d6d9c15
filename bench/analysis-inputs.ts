/**
 * The analysis benchmarks' inputs (bench/analysis.ts, bench/everyday-cpu.ts): brand books of coined names and
 * 2 KB answers with 10 citations, drawn from one seeded stream, so runs compare; and the everyday-word sets of
 * issue 25 made from them. Only types come from src/analysis, so bench/everyday-cpu.ts can measure another
 * checkout's code on these same inputs.
 */
import type { AnswerInput, BrandBookInput } from '../src/analysis/index.ts';

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
const SUFFIX = ['Cloud', 'HQ', 'Suite', 'Pro', 'App', 'Labs', 'AI', 'Works', 'Hub', 'Go'];
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

export interface SeededInputs {
  /** The brand Acme against `competitors` coined names, each with `aliasesEach` names in all. */
  makeBook(competitors: number, aliasesEach: number): BrandBookInput;
  /** `count` answers of about 2 KB naming the book's names (Acme in a fifth of the items), 10 citations each. */
  makeAnswers(book: BrandBookInput, count: number): AnswerInput[];
}

/** Generators over one stream from `seed`: the same calls in the same order give the same inputs. */
export function seededInputs(seed = 42): SeededInputs {
  let state = seed;
  const rand = (): number => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const coined = (): string => {
    const n = 2 + Math.floor(rand() * 2);
    let w = '';
    for (let i = 0; i < n; i++) w += pick(SYL);
    return w[0]?.toUpperCase() + w.slice(1);
  };

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

  return { makeBook, makeAnswers };
}

// Everyday-word names (issue 25): the brand and ten competitors are named like everyday words, and answers hold
// them in both senses. The same answers with the everyday names swapped for coined ones give the cost of reading
// names in context per occurrence.
const EVERYDAY = ['Notion', 'Square', 'Apple', 'Mercury', 'Robin', 'Chase', 'Amazon', 'June', 'Zoom', 'Slack'];
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

/** Three sentences naming `names` added to `share` of the answers (the same ones for any names). */
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

export interface EverydaySets {
  /** `main` with the brand and its first ten competitors named like everyday words. */
  everydayBook: BrandBookInput;
  /** The same book with those names coined (Zyqa, QoNotionx, ...). */
  coinedBook: BrandBookInput;
  /** 35% of the answers hold everyday names; `holding` is how many. */
  mixed: { answers: AnswerInput[]; holding: number };
  /** Every answer holds everyday names. */
  onlyAmbiguous: AnswerInput[];
  /** The same answers with the coined names instead. */
  onlyCoined: AnswerInput[];
}

export function everydaySets(main: BrandBookInput, answers: readonly AnswerInput[]): EverydaySets {
  const everydayBook: BrandBookInput = {
    ...main,
    name: 'Monday',
    brandTerms: ['monday.com'],
    domain: 'monday.com',
    competitors: main.competitors.map((c, i) =>
      i < EVERYDAY.length ? { ...c, name: EVERYDAY[i] as string, aliases: c.aliases.slice(0, 5) } : c,
    ),
  };
  const coinedBook: BrandBookInput = {
    ...everydayBook,
    name: 'Zyqa',
    domain: 'zyqa.com',
    brandTerms: [],
    competitors: everydayBook.competitors.map((c, i) => (i < EVERYDAY.length ? { ...c, name: `Qo${c.name}x` } : c)),
  };
  return {
    everydayBook,
    coinedBook,
    mixed: withEveryday(answers, ['Monday', ...EVERYDAY], 0.35),
    onlyAmbiguous: withEveryday(answers, ['Monday', ...EVERYDAY], 1).answers,
    onlyCoined: withEveryday(answers, EVERYDAY.map((n) => `Qo${n}x`).concat('Zyqa'), 1).answers,
  };
}
