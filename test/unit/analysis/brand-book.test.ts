import { describe, expect, it } from 'vitest';
import { compileBrandBook } from '../../../src/analysis/index.ts';
import { BOOK, facts } from './helpers.ts';

describe('brand book', () => {
  it('returns the cached book for the same names', () => {
    expect(compileBrandBook({ ...BOOK })).toBe(compileBrandBook({ ...BOOK }));
  });

  it('is the same book whatever the order of terms and competitors', () => {
    const shuffled = {
      ...BOOK,
      brandTerms: [...BOOK.brandTerms].reverse(),
      competitors: [...BOOK.competitors].reverse(),
    };
    expect(compileBrandBook(shuffled).key).toBe(compileBrandBook(BOOK).key);
  });

  it('gives a new book when a name changes', () => {
    const changed = compileBrandBook({ ...BOOK, brandTerms: [...BOOK.brandTerms, 'Acme Max'] });
    expect(changed.key).not.toBe(compileBrandBook(BOOK).key);
    expect(facts('Acme Max is here.', [], { ...BOOK, name: 'Zed', brandTerms: ['Acme Max'] }).mentioned).toBe(true);
  });

  it('gives a new book when a competitor alias changes', () => {
    const competitors = BOOK.competitors.map((c) => (c.id === 4 ? { ...c, aliases: ['Baz'] } : c));
    expect(compileBrandBook({ ...BOOK, competitors }).key).not.toBe(compileBrandBook(BOOK).key);
  });

  it('the brand wins a name a competitor also uses', () => {
    const book = { ...BOOK, competitors: [{ id: 9, name: 'Acme', aliases: [], domain: null }] };
    expect(facts('Acme rocks.', [], book).brands).toMatchObject([{ kind: 'brand' }]);
  });

  it('the lower competitor id wins a shared alias', () => {
    const book = {
      ...BOOK,
      competitors: [
        { id: 7, name: 'Zed', aliases: ['Zeta'], domain: null },
        { id: 3, name: 'Yak', aliases: ['Zeta'], domain: null },
      ],
    };
    expect(facts('Zeta rocks.', [], book).brands).toMatchObject([{ competitorId: 3 }]);
  });

  it('ignores empty names and a domain that is a public suffix', () => {
    const book = compileBrandBook({ name: 'Acme', brandTerms: ['', '  '], domain: 'co.uk', competitors: [] });
    expect(book.domain).toBeNull();
    expect(book.patterns).toEqual(['acme']);
  });

  it('matches names given with extra spaces', () => {
    expect(
      facts('We use Bar Labs daily.', [], {
        ...BOOK,
        competitors: [{ id: 4, name: '  Bar   Labs ', aliases: [], domain: null }],
      }).brands[0]?.name,
    ).toBe('Bar Labs');
  });
});
