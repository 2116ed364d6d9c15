import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTarget } from '../../src/http/target.ts';

/** What the server did before plain paths skipped the URL: parse every target. */
function byUrl(target: string) {
  const url = new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`);
  let routable = url.pathname;
  try {
    decodeURIComponent(routable);
  } catch {
    routable = routable.replaceAll('%', '%25');
  }
  return { path: url.pathname, routable, query: [...url.searchParams] };
}

// Characters that URL parsing keeps, drops, encodes or reads as structure: dots, slashes, escapes, NUL, non-ASCII.
const CHARS = [
  '/',
  '.',
  'a',
  'Z',
  '0',
  '_',
  '~',
  '-',
  '%',
  '2',
  'e',
  'E',
  'F',
  '?',
  '#',
  '&',
  '=',
  '\\',
  ' ',
  ':',
  '@',
  '+',
  '\0',
  'é',
  '\u{1F600}',
  '\uD800',
];
const target = fc.array(fc.constantFrom(...CHARS), { maxLength: 24 }).map((cs) => cs.join(''));

describe('request target', () => {
  it('gives the path, routable path and query that URL parsing gives, for any target', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          target,
          target.map((t) => `/${t}`),
          fc.string(),
        ),
        (t) => {
          const got = parseTarget(t);
          expect({ path: got.path, routable: got.routable, query: [...got.query()] }).toEqual(byUrl(t));
        },
      ),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['/whoami', '/whoami'],
    ['/projects/12/prompts/export.csv?x=1', '/projects/12/prompts/export.csv'],
    ['/a/./b/../c', '/a/c'],
    ['/a/%2e%2E/b', '/b'],
    ['//', '//'],
    ['/share/%FF', '/share/%FF'],
  ])('reads %j as the path %j', (t, path) => {
    expect(parseTarget(t).path).toBe(path);
  });
});
