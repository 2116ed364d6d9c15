import fc from 'fast-check';
import robotsParserModule from 'robots-parser';
import { describe, expect, it } from 'vitest';
import { AI_CRAWLERS } from '../../../src/web/ai-crawlers.ts';
import { parseRobotsTxt, ROBOTS_LINE_MAX, ROBOTS_MAX_BYTES, ROBOTS_MAX_RULES } from '../../../src/web/robots.ts';

/** robots.txt access per crawler: RFC 9309 group choice and matching, and the line that decides. */

const URL = 'https://www.acme.com/robots.txt';
const access = (text: string, agent: string) => parseRobotsTxt(URL, text).access(agent);

describe('robots.txt access', () => {
  it('takes the crawler’s own group over *, case-insensitively, merging its groups', () => {
    const text = [
      'User-agent: *',
      'Disallow: /',
      '',
      'user-agent: gptbot',
      'Allow: /',
      '',
      'User-agent: GPTBot',
      'Disallow: /private',
    ].join('\n');
    expect(access(text, 'GPTBot')).toEqual({
      access: 'partial',
      decidingLine: { line: 8, text: 'Disallow: /private' },
      group: 'gptbot',
    });
    expect(access(text, 'ClaudeBot')).toEqual({
      access: 'blocked',
      decidingLine: { line: 2, text: 'Disallow: /' },
      group: '*',
    });
  });

  it('lets a group of several user-agents apply to each', () => {
    const text = 'User-agent: CCBot\nUser-agent: Bytespider\nDisallow: /\n';
    expect(access(text, 'Bytespider').access).toBe('blocked');
    expect(access(text, 'CCBot').access).toBe('blocked');
    expect(access(text, 'GPTBot')).toEqual({ access: 'allowed', decidingLine: null, group: null });
  });

  it('calls a blocked root with an allowed path partial, and a longer Allow wins', () => {
    expect(access('User-agent: *\nDisallow: /\nAllow: /blog/\n', 'GPTBot')).toMatchObject({
      access: 'partial',
      decidingLine: { line: 2 },
    });
    // Only the home page allowed: the Disallow is what the customer reads.
    expect(access('User-agent: *\nDisallow: /\nAllow: /$\n', 'GPTBot')).toMatchObject({
      access: 'partial',
      decidingLine: { line: 2, text: 'Disallow: /' },
    });
    // Same length: Allow wins the tie (RFC 9309 2.2.2).
    expect(access('User-agent: *\nDisallow: /\nAllow: /\n', 'GPTBot')).toMatchObject({
      access: 'partial',
      decidingLine: { line: 2 },
    });
    expect(access('User-agent: *\nAllow: /\n', 'GPTBot')).toEqual({
      access: 'allowed',
      decidingLine: { line: 2, text: 'Allow: /' },
      group: '*',
    });
  });

  it('reads an empty Disallow as nothing disallowed, and ignores comments, junk and a BOM', () => {
    expect(access('User-agent: *\nDisallow:\n', 'GPTBot')).toEqual({
      access: 'allowed',
      decidingLine: null,
      group: '*',
    });
    const noisy = '\uFEFFUser-agent: GPTBot # OpenAI\nthis is not a rule\n<html>\nDisallow: / # all of it\n';
    const robots = parseRobotsTxt(URL, noisy);
    expect(robots.access('GPTBot')).toEqual({
      access: 'blocked',
      decidingLine: { line: 4, text: 'Disallow: / # all of it' },
      group: 'gptbot',
    });
    expect(robots.unreadLines).toBe(2);
  });

  it('matches wildcards and end anchors', () => {
    const robots = parseRobotsTxt(URL, 'User-agent: *\nDisallow: /*.pdf$\nDisallow: /search\n');
    expect(robots.isAllowed('https://www.acme.com/a/b.pdf', 'GPTBot')).toBe(false);
    expect(robots.isAllowed('https://www.acme.com/a/b.pdf?x=1', 'GPTBot')).toBe(true);
    expect(robots.isAllowed('https://www.acme.com/searching', 'GPTBot')).toBe(false);
    expect(robots.isAllowed('https://www.acme.com/', 'GPTBot')).toBe(true);
  });

  it('lists Sitemap lines, and drops the partial last line of a cut file', () => {
    const robots = parseRobotsTxt(
      URL,
      'Sitemap: https://www.acme.com/a.xml\nUser-agent: *\nDisallow: /x\nSitemap: https://cdn.acme.com/b.xml\nUser-agent: GPTBot\nDisal',
      true,
    );
    expect(robots.sitemaps).toEqual(['https://www.acme.com/a.xml', 'https://cdn.acme.com/b.xml']);
    expect(robots.access('GPTBot')).toMatchObject({ group: '*' });
  });

  it('decides for every listed crawler', () => {
    const text = AI_CRAWLERS.map(
      (c, i) => `User-agent: ${c.agent}\n${i % 2 ? 'Disallow: /' : 'Disallow: /private'}\n`,
    ).join('\n');
    const robots = parseRobotsTxt(URL, text);
    for (const [i, c] of AI_CRAWLERS.entries()) {
      expect(robots.access(c.agent), c.agent).toMatchObject({
        access: i % 2 ? 'blocked' : 'partial',
        group: c.agent.toLowerCase(),
      });
    }
  });
});

/** robots-parser 3, whose decisions ours must repeat; it is no longer used to read sites' files (src/web/robots.ts says why). */
const robotsParser = robotsParserModule as unknown as (
  url: string,
  contents: string,
) => { isAllowed(url: string, ua?: string): boolean | undefined; getSitemaps(): string[] };

describe('robots.txt read as robots-parser reads it', () => {
  it('decides every generated URL as robots-parser does', () => {
    const pattern = fc
      .array(fc.constantFrom('/', 'a', 'b', '*', '$', '%2f', '%2F', 'é', '?', '=', '#'), { maxLength: 6 })
      .map((a) => a.join(''));
    const line = fc.oneof(
      fc
        .tuple(fc.constantFrom('User-agent', 'user-AGENT'), fc.constantFrom('a', 'B', '*', 'c/1.0', ' a ', ''))
        .map(([k, v]) => `${k}: ${v}`),
      fc.tuple(fc.constantFrom('Allow', 'Disallow', 'disallow', 'Crawl-delay'), pattern).map(([k, v]) => `${k}:${v}`),
      fc.constantFrom('', '# comment', 'junk', 'Sitemap: https://acme.com/s.xml', 'Foo: bar', ':x', 'Host: acme.com'),
    );
    const path = fc
      .array(fc.constantFrom('/', 'a', 'b', '$', '*', '%2f', 'é', '?', '=', 'x'), { maxLength: 8 })
      .map((a) => `/${a.join('')}`);
    const host = fc.constantFrom(
      'https://acme.com',
      'https://acme.com:443',
      'http://acme.com',
      'https://other.com',
      'https://acme.com:8443',
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 12 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        host,
        path,
        fc.constantFrom('a', 'b', 'c', 'A/2', '*'),
        (lines, newline, origin, p, agent) => {
          const text = lines.join(newline);
          const theirs = robotsParser('https://acme.com/robots.txt', text);
          const ours = parseRobotsTxt('https://acme.com/robots.txt', text);
          expect(ours.isAllowed(`${origin}${p}`, agent)).toBe(theirs.isAllowed(`${origin}${p}`, agent) !== false);
          expect(ours.sitemaps).toEqual(theirs.getSitemaps());
        },
      ),
      { numRuns: 5_000 },
    );
  });
});

describe('robots.txt limits', () => {
  const cut = (text: string) => text.slice(0, ROBOTS_MAX_BYTES);

  it('keeps a group’s rules once, whatever its number of user-agents', () => {
    // robots-parser copied each rule into every agent of its group: 100 KB took 13 s and 1.5 GB, 200 KB ran out of memory.
    const text = cut(`${'User-agent: GPTBot\n'.repeat(12_000)}${'Disallow: /private\n'.repeat(20_000)}`);
    const started = performance.now();
    const heap = process.memoryUsage().heapUsed;
    const robots = parseRobotsTxt(URL, text, true);
    expect(robots.access('GPTBot')).toMatchObject({ access: 'partial', group: 'gptbot' });
    expect(robots.isAllowed('https://www.acme.com/private/x', 'GPTBot')).toBe(false);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(200 * 1024 * 1024);
  });

  it('matches wildcard rules in time URL + pattern: 400 KB of * checked against long URLs', () => {
    // robots-parser matched in time pattern x URL: about 3 s for each URL checked.
    const robots = parseRobotsTxt(
      URL,
      `User-agent: *\n${`Disallow: /${'*'.repeat(1000)}x\n`.repeat(400)}${'Disallow: *a*b*c*d\n'.repeat(5000)}`,
    );
    const started = performance.now();
    for (let i = 0; i < 50; i++)
      expect(robots.isAllowed(`https://www.acme.com/${'a'.repeat(2000)}${i}`, 'SightlineBot')).toBe(true);
    expect(robots.isAllowed(`https://www.acme.com/${'a'.repeat(2000)}x`, 'SightlineBot')).toBe(false);
    expect(AI_CRAWLERS.map((c) => robots.access(c.agent).access)).toEqual(AI_CRAWLERS.map(() => 'partial'));
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it(`reads at most ${ROBOTS_MAX_RULES.toLocaleString('en-US')} rules and ignores lines longer than ${ROBOTS_LINE_MAX.toLocaleString('en-US')} characters, saying so`, () => {
    const rules = Array.from({ length: ROBOTS_MAX_RULES }, (_, i) => `Disallow: /r${i}/`).join('\n');
    const robots = parseRobotsTxt(URL, `User-agent: *\n${rules}\nDisallow: /late/\nDisallow: /later/\n`);
    expect(robots.isAllowed(`https://www.acme.com/r${ROBOTS_MAX_RULES - 1}/`, 'GPTBot')).toBe(false);
    expect(robots.isAllowed('https://www.acme.com/late/', 'GPTBot')).toBe(true);
    expect(robots.notes).toEqual(['robots.txt has more than 10,000 rules; the 2 after the first 10,000 were ignored']);

    // An overlong line is a line without a value: it still ends a run of User-agent lines, and a comment does not make it long.
    const long = `/${'x'.repeat(ROBOTS_LINE_MAX)}`;
    const text = `User-agent: GPTBot\nDisallow: ${long}\nUser-agent: ClaudeBot\nDisallow: /claude-only # ${'c'.repeat(ROBOTS_LINE_MAX)}\nSitemap: https://www.acme.com/${long}\n`;
    const withLong = parseRobotsTxt(URL, text);
    expect(withLong.notes).toEqual(['2 lines longer than 16,664 characters were ignored']);
    expect(withLong.access('GPTBot')).toEqual({ access: 'allowed', decidingLine: null, group: 'gptbot' });
    expect(withLong.access('ClaudeBot')).toMatchObject({ access: 'partial', decidingLine: { line: 4 } });
    expect(withLong.sitemaps).toEqual([]);
  });
});
