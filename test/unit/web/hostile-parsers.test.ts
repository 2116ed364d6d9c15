import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AI_CRAWLERS } from '../../../src/web/ai-crawlers.ts';
import { headBytes, readTitle } from '../../../src/web/html-title.ts';
import { readLlmsTxt } from '../../../src/web/llms-txt.ts';
import { parseRobotsTxt, ROBOTS_MAX_BYTES } from '../../../src/web/robots.ts';
import { parseSitemap, SitemapError } from '../../../src/web/sitemap-parser.ts';

/**
 * Every parser of a file a customer's site serves, on generated hostile
 * text: long runs of each format's special characters (`[`, `(`, `*`, `<`,
 * nesting, quotes, comments), long lines, lone surrogates, NUL and random
 * Unicode, up to 200 KB an input. Each must finish well within a second an
 * input and throw nothing but its own error type. FUZZ_SEED replays a run.
 */

const MAX = 200 * 1024;
/** Far above what any of these parsers takes on 200 KB (tens of ms at most); the old ones took seconds to minutes. */
const DEADLINE_MS = 1000;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
const RUNS = 40;

const noise = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom('\u0000', '\uD800', '\uDFFF', '\uFEFF', '\u2028', '\u00a0', 'é', '中', '\r', '\t'),
);

/** Runs of pieces, each repeated up to thousands of times, to at most MAX characters. */
function hostile(pieces: string[]): fc.Arbitrary<string> {
  const piece = fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pieces) }, { weight: 1, arbitrary: noise });
  return fc
    .array(fc.tuple(piece, fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 100_000 }))), {
      minLength: 1,
      maxLength: 10,
    })
    .map((runs) => {
      let text = '';
      for (const [p, times] of runs) {
        if (p.length === 0) continue;
        text += p.repeat(Math.min(times, Math.ceil((MAX - text.length) / p.length)));
        if (text.length >= MAX) break;
      }
      return text.slice(0, MAX);
    });
}

async function* chunks(text: string, size = 16 * 1024): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

/** Runs `read`, failing past the deadline or on an error that is not `allowed`. */
async function withinDeadline(
  what: string,
  read: () => unknown,
  allowed?: new (...args: never[]) => Error,
): Promise<void> {
  const started = performance.now();
  try {
    await read();
  } catch (err) {
    if (!allowed || !(err instanceof allowed)) throw err;
  }
  expect(performance.now() - started, what).toBeLessThan(DEADLINE_MS);
}

describe('parsers of customer files on hostile input', { timeout: 20_000 }, () => {
  it('llms.txt', async () => {
    const text = hostile(['[', ']', '(', ')', '"', ' ', '\n', '[a](b', '[](x "', '[t](u "v")', '# Acme\n', '- ', 'x']);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), text, async (heading, body) => {
        await withinDeadline('readLlmsTxt', () => readLlmsTxt(heading ? `# Acme\n${body}` : body, 'text/plain'));
      }),
      { numRuns: RUNS, seed },
    );
  });

  it('robots.txt, its access per crawler and its rules on generated URLs', async () => {
    const text = hostile([
      'User-agent: ',
      'User-agent: GPTBot\n',
      'User-agent: *\n',
      'Disallow: ',
      'Allow: ',
      'Disallow: /*a*b$\n',
      '*',
      '$',
      '/',
      'a',
      '\n',
      '\r\n',
      '#',
      ':',
      'Sitemap: https://acme.com/s.xml\n',
      '%2F',
      '%',
    ]);
    const path = hostile(['/', 'a', '*', '$', '%2F', '%', '?', '=', 'é', '#']).map((p) => p.slice(0, 4000));
    await fc.assert(
      fc.asyncProperty(text, fc.array(path, { minLength: 1, maxLength: 5 }), async (body, paths) => {
        await withinDeadline('parseRobotsTxt and access', () => {
          const robots = parseRobotsTxt('https://acme.com/robots.txt', body, body.length >= ROBOTS_MAX_BYTES);
          for (const c of AI_CRAWLERS) robots.access(c.agent);
          for (const p of paths) robots.isAllowed(`https://acme.com/${p}`, 'SightlineBot');
        });
      }),
      { numRuns: RUNS, seed },
    );
  });

  it('sitemaps', async () => {
    const text = hostile([
      '<',
      '>',
      '</',
      '<a>',
      '</a>',
      '<url>',
      '</url>',
      '<loc>',
      '</loc>',
      'https://acme.com/',
      '<![CDATA[',
      ']]>',
      '<!--',
      '-->',
      '<?x ',
      '?>',
      '&amp;',
      '&',
      '&#x',
      ' a="x"',
      '"',
      '=',
      '<!DOCTYPE urlset [',
      '<!ENTITY a "aaaa">',
      ':',
      'x',
    ]);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('', '<urlset>', '<?xml version="1.0"?><sitemapindex>'),
        text,
        async (start, body) => {
          await withinDeadline(
            'parseSitemap',
            () => parseSitemap(chunks(`${start}${body}`), 'https://acme.com/sitemap.xml'),
            SitemapError,
          );
        },
      ),
      { numRuns: RUNS, seed },
    );
  });

  it('page titles', async () => {
    const text = hostile([
      '<',
      '>',
      '<div>',
      '</b>',
      '<form>',
      '<p>',
      '</p>',
      '<title>',
      '</title>',
      '<meta property="og:title" content="',
      ' a=x',
      '<svg>',
      '</foreignObject>',
      '<!--',
      '<script>',
      '<![CDATA[',
      '&amp;',
      '&#',
      '"',
      "'",
      '<body',
      '</head>',
      'x',
    ]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('', '<!doctype html><html><head>'), text, async (start, body) => {
        // As a job reads a page: its head's bytes, then the title from them.
        await withinDeadline('headBytes and readTitle', async () =>
          readTitle(once(await headBytes(chunks(`${start}${body}`)))),
        );
        await withinDeadline('readTitle of the whole page', () => readTitle(chunks(`${start}${body}`)));
      }),
      { numRuns: RUNS, seed },
    );
  });
});
