import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildAutomaton, DENSE_MAX_CELLS, scan } from '../../../src/analysis/automaton.ts';
import { compileBrandBook } from '../../../src/analysis/brand-book.ts';

/**
 * Names are a tenant's input: a book of many long names over thousands of
 * distinct characters must not build a dense table of gigabytes. Past
 * DENSE_MAX_CELLS the automaton keeps a map of children per state and finds
 * exactly what the dense one finds.
 */
describe('automaton size', () => {
  it('finds the same hits sparse as dense, on generated names and text', () => {
    const unit = fc.constantFrom('a', 'b', 'c', 'ab', ' ', 'é', '中', '文');
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit, minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 }),
        fc.string({ unit, maxLength: 300 }),
        (patterns, text) => {
          const unique = [...new Set(patterns)];
          expect(scan(buildAutomaton(unique, 0), text)).toEqual(scan(buildAutomaton(unique), text));
        },
      ),
      { numRuns: 300, seed: 25 },
    );
  });

  it('keeps a book of 300,000 characters of CJK names small (sparse), and reads with it', () => {
    let code = 0x4e00;
    const names = Array.from({ length: 3_000 }, () =>
      Array.from({ length: 100 }, () => String.fromCharCode((code++ % 0x5000) + 0x4e00)).join(''),
    );
    const heapBefore = process.memoryUsage().heapUsed;
    const t = performance.now();
    const book = compileBrandBook({
      name: 'Acme',
      brandTerms: [],
      domain: 'acme.com',
      competitors: names.map((name, i) => ({ id: i + 1, name, aliases: [], domain: null })),
    });
    expect(performance.now() - t).toBeLessThan(20_000);
    // A dense table would be 300,000 states x 20,000 symbols x 4 bytes: 24 GB.
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(1_500_000_000);
    expect(DENSE_MAX_CELLS).toBeLessThan(300_000 * 20_000);
    const hits = book.scan(`We compared ${names[7] as string} and Acme.`);
    expect(hits.map((h) => book.info[h.pattern]?.entity)).toEqual([8, 0]);
  });
});
