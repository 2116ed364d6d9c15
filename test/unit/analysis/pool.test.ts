import { afterAll, describe, expect, it } from 'vitest';
import { analyse, analyseOffThread, closeAnalysisPool, compileBrandBook } from '../../../src/analysis/index.ts';

/** The analysis threads give exactly the facts the calling thread would. */

const book = compileBrandBook({
  name: 'Acme',
  brandTerms: ['Acme Cloud'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Globex', aliases: ['Globex Corp'], domain: 'globex.com' },
    { id: 2, name: 'Initech', aliases: [], domain: null },
  ],
});

const answers = [
  {
    text: '1. **Acme** is the best.\n2. Globex Corp is close.\n3. Initech is cheaper.',
    citations: [{ url: 'https://www.acme.com/pricing?utm_source=x', title: 'Acme pricing' }],
    failed: false,
  },
  { text: 'Globex leads; Acme Cloud and Hooli follow, then Pied Piper.', citations: [{ url: 'https://globex.com/blog', title: null }], failed: false },
  { text: 'Nothing relevant here.', citations: [], failed: false },
  { text: null, citations: [], failed: true },
];

afterAll(() => closeAnalysisPool());

describe('analyseOffThread', () => {
  it('returns the facts of each answer, in order, equal to analysing them here', async () => {
    const facts = await analyseOffThread(book, answers);
    expect(facts).toEqual(answers.map((a) => analyse(a, book)));
    expect(facts.map((f) => f.verdict)).toEqual(['cited', 'named', 'missing', 'failed']);
  });

  it('keeps working after the pool was closed, and answers nothing for nothing', async () => {
    await closeAnalysisPool();
    expect(await analyseOffThread(book, [])).toEqual([]);
    expect((await analyseOffThread(book, answers.slice(0, 1)))[0]?.brandRank).toBe(1);
  });
});
