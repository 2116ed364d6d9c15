import { describe, expect, it } from 'vitest';
import { hostMatches, normaliseDomain, normaliseUrl } from '../../../src/analysis/index.ts';
import { facts } from './helpers.ts';

describe('citations: URL normalisation', () => {
  it.each([
    ['drops the scheme difference', 'http://acme.com/a', 'https://acme.com/a'],
    ['drops www.', 'https://www.acme.com/a', 'https://acme.com/a'],
    ['drops a trailing slash', 'https://acme.com/a/', 'https://acme.com/a'],
    ['drops the root slash', 'https://acme.com/', 'https://acme.com'],
    ['lower-cases the host', 'https://WWW.Acme.COM/Path', 'https://acme.com/Path'],
    ['keeps path case', 'https://acme.com/About-Us', 'https://acme.com/About-Us'],
    ['drops utm parameters', 'https://acme.com/a?utm_source=chatgpt.com&utm_medium=x', 'https://acme.com/a'],
    ['drops click ids', 'https://acme.com/a?gclid=1&fbclid=2&msclkid=3', 'https://acme.com/a'],
    ['keeps real parameters', 'https://acme.com/a?id=7&utm_source=x', 'https://acme.com/a?id=7'],
    ['sorts parameters', 'https://acme.com/a?b=2&a=1', 'https://acme.com/a?a=1&b=2'],
    ['drops the fragment', 'https://acme.com/a#section', 'https://acme.com/a'],
    ['drops text fragments', 'https://acme.com/a#:~:text=hello', 'https://acme.com/a'],
    ['drops default ports', 'https://acme.com:443/a', 'https://acme.com/a'],
    ['keeps other ports', 'https://acme.com:8443/a', 'https://acme.com:8443/a'],
    ['accepts a bare host', 'acme.com/pricing', 'https://acme.com/pricing'],
    ['accepts a scheme-relative URL', '//acme.com/x', 'https://acme.com/x'],
    ['trims white space', '  https://acme.com/x  ', 'https://acme.com/x'],
    ['handles non-ASCII paths', 'https://acme.com/café', 'https://acme.com/caf%C3%A9'],
    ['handles internationalised hosts', 'https://münchen.de/', 'https://xn--mnchen-3ya.de'],
  ])('%s', (_rule, raw, expected) => {
    expect(normaliseUrl(raw)?.url).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['not a URL', 'hello world'],
    ['mailto', 'mailto:x@acme.com'],
    ['javascript', 'javascript:alert(1)'],
    ['ftp', 'ftp://acme.com/file'],
    ['IP address', 'http://10.0.0.1/x'],
    ['single label', 'http://intranet/x'],
    ['unknown suffix', 'https://acme.invalidtld/x'],
  ])('rejects %s', (_rule, raw) => {
    expect(normaliseUrl(raw)).toBeNull();
  });
});

describe('citations: host matching with the public suffix list', () => {
  it.each([
    ['same host', 'acme.com', 'acme.com', true],
    ['subdomain', 'blog.acme.com', 'acme.com', true],
    ['deep subdomain', 'a.b.acme.com', 'acme.com', true],
    ['look-alike prefix', 'notacme.com', 'acme.com', false],
    ['look-alike suffix host', 'acme.com.evil.io', 'acme.com', false],
    ['hyphen look-alike', 'acme-com.io', 'acme.com', false],
    ['parent of the domain', 'acme.com', 'blog.acme.com', false],
  ])('%s', (_rule, host, domain, expected) => {
    expect(hostMatches(host, domain)).toBe(expected);
  });

  it.each([
    ['bare domain', 'acme.com', 'acme.com'],
    ['www', 'www.acme.com', 'acme.com'],
    ['URL', 'https://www.acme.com/en/', 'acme.com'],
    ['private suffix site', 'acme.github.io', 'acme.github.io'],
    ['public suffix alone', 'co.uk', null],
    ['IP', '127.0.0.1', null],
    ['localhost', 'localhost', null],
  ])('normalises a site domain: %s', (_rule, input, expected) => {
    expect(normaliseDomain(input)).toBe(expected);
  });
});

describe('citations: own and competitor', () => {
  it.each([
    ['own page', 'https://acme.com/pricing', true],
    ['own page with www', 'https://www.acme.com/', true],
    ['own subdomain', 'https://docs.acme.com/start', true],
    ['look-alike host', 'https://notacme.com/', false],
    ['look-alike suffix', 'https://acme.com.evil.io/', false],
    ['other site naming the brand in the path', 'https://example.org/acme.com', false],
  ])('ownCited for %s is %s', (_rule, url, expected) => {
    expect(facts('Some answer.', [{ url }]).ownCited).toBe(expected);
  });

  it('lists competitors whose domain is cited', () => {
    const f = facts('Some answer.', [
      { url: 'https://www.notion.so/x' },
      { url: 'https://blog.foo.io/y' },
      { url: 'https://notion.so/z' },
    ]);
    expect(f.competitorsCited).toEqual([1, 2]);
  });

  it('marks own and competitor citations with their site type', () => {
    const f = facts('Some answer.', [{ url: 'https://acme.com' }, { url: 'https://foo.io' }]);
    expect(f.citations.map((c) => [c.siteType, c.competitorId])).toEqual([
      ['own', null],
      ['competitor', 2],
    ]);
  });

  it('keeps a citation that is not a URL, with no domain', () => {
    const f = facts('Some answer.', [{ url: 'not a url', title: 'x' }]);
    expect(f.citations).toEqual([
      { url: 'not a url', normalizedUrl: 'not a url', title: 'x', domain: '', siteType: 'other', competitorId: null },
    ]);
  });

  it('keeps the title, trimmed, and null for an empty one', () => {
    const f = facts('Some answer.', [
      { url: 'https://a.org', title: '  Hello ' },
      { url: 'https://b.org', title: '' },
    ]);
    expect(f.citations.map((c) => c.title)).toEqual(['Hello', null]);
  });

  it('gives the host without www as the domain', () => {
    expect(facts('x', [{ url: 'https://www.en.wikipedia.org/wiki/X' }]).citations[0]?.domain).toBe('en.wikipedia.org');
  });
});

describe('provider-given source domains', () => {
  it('takes the domain the provider names when the URL is a redirect (Gemini grounding)', async () => {
    const { analyseCitations } = await import('../../../src/analysis/citations.ts');
    const { compileBrandBook } = await import('../../../src/analysis/brand-book.ts');
    const book = compileBrandBook({
      name: 'Acme',
      brandTerms: [],
      domain: 'acme.com',
      competitors: [{ id: 7, name: 'Globex', aliases: [], domain: 'globex.com' }],
    });
    const [own, rival, plain] = analyseCitations(
      [
        {
          url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC',
          title: 'acme.com',
          domain: 'acme.com',
        },
        {
          url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/XyZ',
          title: 'globex.com',
          domain: 'www.globex.com',
        },
        { url: 'https://blog.acme.com/post', title: 'Post', domain: 'acme.com' },
      ],
      book,
    );
    expect(own).toMatchObject({ domain: 'acme.com', siteType: 'own' });
    expect(rival).toMatchObject({ domain: 'globex.com', siteType: 'competitor', competitorId: 7 });
    // A URL already on the named domain keeps its own, more precise host.
    expect(plain).toMatchObject({ domain: 'blog.acme.com', siteType: 'own' });
  });
});
