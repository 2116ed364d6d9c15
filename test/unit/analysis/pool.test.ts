import { afterAll, describe, expect, it } from 'vitest';
import {
  analyse,
  ANALYSIS_MAX_CHARS,
  compileBrandBook,
  createAnalysisPool,
  type AnswerInput,
} from '../../../src/analysis/index.ts';

/** The analysis threads give exactly the facts the calling thread would, and no answer can hold them. */

const book = compileBrandBook({
  name: 'Acme',
  brandTerms: ['Acme Cloud'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Globex', aliases: ['Globex Corp'], domain: 'globex.com' },
    { id: 2, name: 'Initech', aliases: [], domain: null },
  ],
});

const answers: AnswerInput[] = [
  {
    text: '1. **Acme** is the best.\n2. Globex Corp is close.\n3. Initech is cheaper.',
    citations: [{ url: 'https://www.acme.com/pricing?utm_source=x', title: 'Acme pricing' }],
    failed: false,
  },
  {
    text: 'Globex leads; Acme Cloud and Hooli follow, then Pied Piper.',
    citations: [{ url: 'https://globex.com/blog', title: null }],
    failed: false,
  },
  { text: 'Nothing relevant here.', citations: [], failed: false },
  { text: null, citations: [], failed: true },
  // Longer than analysis reads: the thread is sent only what it reads, and must find the same facts.
  {
    text: `Initech is fine. ${'word '.repeat(ANALYSIS_MAX_CHARS / 5)} Acme is named only past the cap.`,
    citations: [],
    failed: false,
  },
];

const unruly = new URL('../../fixtures/analysis/unruly-thread.ts', import.meta.url);
const options = { timeoutMs: 10_000 };

/** A pool as a context makes it (src/context.ts `analysisPool`). */
const shared = createAnalysisPool();
afterAll(() => shared.close());

describe('an analysis pool', () => {
  it('returns the facts of each answer, in order, equal to analysing them here', async () => {
    const facts = await shared.analyse(book, answers, options);
    expect(facts).toEqual(answers.map((a) => analyse(a, book)));
    expect(facts.map((f) => f.verdict)).toEqual(['cited', 'named', 'missing', 'failed', 'lost']);
    expect(facts[4]?.analysis).toMatchObject({ truncated: true, timedOut: false });
  });

  it('keeps working after the pool was closed, and answers nothing for nothing', async () => {
    await shared.close();
    expect(await shared.analyse(book, [], options)).toEqual([]);
    expect((await shared.analyse(book, answers.slice(0, 1), options))[0]?.brandRank).toBe(1);
  });
});

describe('a deadline per task', () => {
  const hanging: AnswerInput = {
    text: 'Acme, HANG: this answer is never read to the end.',
    citations: [{ url: 'https://www.acme.com/x', title: ' Acme ' }],
    failed: false,
  };

  it('a batch past its deadline is retried answer by answer; the answer that cannot be read gets facts that say so', async () => {
    const pool = createAnalysisPool({ filename: unruly, maxThreads: 2 });
    try {
      const batch = [answers[0]!, hanging, answers[1]!];
      const t0 = performance.now();
      const facts = await pool.analyse(book, batch, { timeoutMs: 300 });
      // A deadline for the batch, then one for each answer alone: a hang costs two deadlines, not a hung scan.
      expect(performance.now() - t0).toBeLessThan(20_000);
      expect(facts[0]).toEqual(analyse(answers[0]!, book));
      expect(facts[2]).toEqual(analyse(answers[1]!, book));
      expect(facts[1]).toMatchObject({
        verdict: 'missing',
        mentioned: false,
        brands: [],
        tone: null,
        analysis: { readChars: 0, truncated: false, timedOut: true },
        // Citations kept as given, none classified: nothing of the answer was read on the calling thread.
        citations: [
          {
            url: 'https://www.acme.com/x',
            normalizedUrl: 'https://www.acme.com/x',
            title: 'Acme',
            domain: '',
            siteType: 'other',
            competitorId: null,
          },
        ],
      });
      // The pool is whole again afterwards.
      expect(await pool.analyse(book, answers.slice(0, 2), { timeoutMs: 10_000 })).toEqual(
        answers.slice(0, 2).map((a) => analyse(a, book)),
      );
    } finally {
      await pool.close();
    }
  });

  it('counts from when a thread starts the task, not from when it was queued', async () => {
    // One thread: the second batch waits behind the hanging one for longer than the deadline, and is still read in full.
    const pool = createAnalysisPool({ filename: unruly, maxThreads: 1 });
    try {
      const [stuck, queued] = await Promise.all([
        pool.analyse(book, [hanging], { timeoutMs: 500 }),
        pool.analyse(book, answers.slice(0, 2), { timeoutMs: 500 }),
      ]);
      expect(stuck[0]?.analysis.timedOut).toBe(true);
      expect(queued).toEqual(answers.slice(0, 2).map((a) => analyse(a, book)));
    } finally {
      await pool.close();
    }
  });

  it('a thread that runs out of memory ends, not the process: its answer gets facts that say so', async () => {
    // Twice what a thread holds once its modules are loaded (about 47 MB of heap, the lexicons and the names reader's
    // weights): at 32 MB the replacement thread itself ran out while loading, and piscina starts no thread again
    // after one fails before it is ready, so the next task waited for ever.
    const pool = createAnalysisPool({ filename: unruly, maxThreads: 1, heapMb: 96 });
    try {
      const hog: AnswerInput = { text: 'Acme HOG', citations: [], failed: false };
      const facts = await pool.analyse(book, [answers[0]!, hog], { timeoutMs: 60_000 });
      expect(facts[0]).toEqual(analyse(answers[0]!, book));
      expect(facts[1]?.analysis.timedOut).toBe(true);
      expect(await pool.analyse(book, answers.slice(0, 1), { timeoutMs: 10_000 })).toEqual([
        analyse(answers[0]!, book),
      ]);
    } finally {
      await pool.close();
    }
  });

  it('an answer that failed or is blank is never stopped: it has nothing to read', async () => {
    const pool = createAnalysisPool({ filename: unruly, maxThreads: 1 });
    try {
      const facts = await pool.analyse(book, [hanging, answers[3]!], { timeoutMs: 200 });
      expect(facts[1]).toEqual(analyse(answers[3]!, book));
      expect(facts[1]?.analysis.timedOut).toBe(false);
    } finally {
      await pool.close();
    }
  });
});
