import { describe, expect, it } from 'vitest';
import { facts, named } from './helpers.ts';

describe('mentions: whole words, case and accents', () => {
  it.each([
    ['plain name', 'We like Acme for this.'],
    ['lower case', 'we like acme for this.'],
    ['upper case', 'WE LIKE ACME FOR THIS.'],
    ['start of text', 'Acme is a tool.'],
    ['end of text', 'The tool is Acme'],
    ['possessive', "Acme's pricing is fair."],
    ['curly possessive', 'Acme\u2019s pricing is fair.'],
    ['bold markdown', 'Try **Acme** today.'],
    ['italic markdown', 'Try _Acme_ today.'],
    ['markdown link text', 'Try [Acme](https://example.org/x) today.'],
    ['inline code', 'Run `Acme` now.'],
    ['heading', '## Acme\nA tool.'],
    ['parentheses', 'A tool (Acme) for teams.'],
    ['quotes', 'The "Acme" tool.'],
    ['comma after', 'Acme, Notion and others.'],
    ['colon after', 'Acme: a tool.'],
    ['hyphenated compound', 'An Acme-powered workflow.'],
    ['brand term', 'Acme Corp is based in Austin.'],
    ['camel-case brand term', 'AcmeCloud hosts files.'],
    ['dotted brand term', 'Acme.io hosts files.'],
    ['accent-folded term', 'Dinner at Cafe Rouge.'],
    ['accented term as written', 'Dinner at Café Rouge.'],
    ['accented text for plain name', 'On aime Acmé.'],
    ['domain written in text', 'See acme.com for details.'],
    ['domain at end of sentence', 'Details are at acme.com.'],
    ['subdomain in text', 'Log in at app.acme.com today.'],
    ['domain in a URL in text', 'See https://www.acme.com/pricing for prices.'],
    ['email address domain', 'Write to sales@acme.com.'],
    ['list item', '1. Acme – simple.'],
    ['non-breaking space around', 'Use\u00a0Acme\u00a0now.'],
  ])('names the brand: %s', (_rule, text) => {
    expect(facts(text).mentioned).toBe(true);
  });

  it.each([
    ['inside a longer word', 'We went to Acmeville.'],
    ['prefix of a longer word', 'The acmes were high.'],
    ['suffix of a longer word', 'NotAcme is different.'],
    ['look-alike host', 'Visit notacme.com instead.'],
    ['brand domain followed by another host', 'Beware acme.com.evil.io links.'],
    ['brand name as a label of another host', 'Open acme.evil.io now.'],
    ['hyphenated other host', 'Open my-acme.com now.'],
    ['domain prefix of a longer TLD', 'See acme.community for talk.'],
    ['brand inside a URL path', 'See https://example.org/acme-review for more.'],
    ['brand inside a URL query', 'See https://example.org/?q=acme now.'],
    ['brand domain inside another URL path', 'See https://evil.io/acme.com now.'],
    ['dotted token that is not the brand', 'Built with Acme.js and more.'],
    ['subdomain of another brand', 'Open acme.notion.so now.'],
    ['digit-joined', 'Model Acme2 is old.'],
    ['underscore is not a letter but word is longer', 'The acmeish look.'],
    ['no brand at all', 'Nothing to see here.'],
  ])('does not name the brand: %s', (_rule, text) => {
    expect(facts(text).mentioned).toBe(false);
  });

  it.each([
    ['everyday-word name in lower case', 'Just a notion of time.', []],
    ['everyday-word name as given', 'We compared Acme with Notion here.', ['Acme', 'Notion']],
    ['everyday-word name at sentence start, unmarked', 'Notion of speed matters.', []],
    ['everyday-word name at sentence start, bold', '**Notion** is a workspace.', ['Notion']],
    ['everyday-word name at sentence start, with a colon', 'Notion: a workspace.', ['Notion']],
    [
      'everyday-word name at sentence start, named elsewhere',
      'Notion is popular. Many teams use Notion daily.',
      ['Notion'],
    ],
    ['two-letter alias needs its casing', 'The hp of the engine.', []],
    ['two-letter alias as given', 'Printers from HP are common.', ['Co-op']],
    ['two common words need their casing', 'The best buy is here.', []],
    ['two common words as given', 'Shop at Best Buy now.', ['Best Buy']],
    ['hyphenated competitor name', 'The Co-op store opened.', ['Co-op']],
    ['hyphenated name not inside a longer word', 'The co-opted plan.', []],
  ])('ambiguous and punctuated names: %s', (_rule, text, expected) => {
    expect(named(text).filter((n) => n !== 'Acme' || expected.includes('Acme'))).toEqual(expected);
  });

  it('prefers the longest name at one place: "Foo Cloud" over "Foo"', () => {
    expect(facts('Foo Cloud is fast.').brands).toMatchObject([{ name: 'Foo Cloud', count: 1 }]);
  });

  it('counts each mention of a brand once', () => {
    expect(facts('Acme, acme.com and AcmeCloud.').brands[0]?.count).toBe(3);
  });

  it('reports the offset of the first brand mention', () => {
    expect(facts('Foo first, then Acme, then Acme again.').brandPosition).toBe(16);
  });

  it('reports the first mention offset for every brand', () => {
    expect(facts('Foo first, then Acme.').brands.map((b) => b.position)).toEqual([0, 16]);
  });

  it('does not count a brand named only in another brand URL host', () => {
    expect(facts('Read https://foo.io/blog/acme today.').brands.map((b) => b.name)).toEqual(['Foo Cloud']);
  });

  it('has no brandPosition when the brand is not named', () => {
    expect(facts('Only Foo here.').brandPosition).toBeNull();
  });
});
