import { analyse, compileBrandBook, type AnswerFacts, type BrandBookInput } from '../../../src/analysis/index.ts';

export const BOOK: BrandBookInput = {
  name: 'Acme',
  brandTerms: ['Acme Corp', 'AcmeCloud', 'Acme.io', 'Café Rouge'],
  domain: 'acme.com',
  competitors: [
    { id: 1, name: 'Notion', aliases: [], domain: 'notion.so' },
    { id: 2, name: 'Foo Cloud', aliases: ['FooCloud', 'Foo'], domain: 'foo.io' },
    { id: 3, name: 'Co-op', aliases: ['HP'], domain: 'coop.example.com' },
    { id: 4, name: 'Bar', aliases: ['Bar Labs'], domain: null },
    { id: 5, name: 'Best Buy', aliases: [], domain: 'bestbuy.com' },
  ],
};

export function facts(
  text: string,
  citations: { url: string; title?: string | null }[] = [],
  book: BrandBookInput = BOOK,
): AnswerFacts {
  return analyse({ text, citations, failed: false }, compileBrandBook(book));
}

/** Names of the brands found, in rank order. */
export function named(text: string, book: BrandBookInput = BOOK): string[] {
  return facts(text, [], book).brands.map((b) => b.name);
}
