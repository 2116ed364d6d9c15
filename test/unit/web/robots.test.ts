import { describe, expect, it } from 'vitest';
import { AI_CRAWLERS } from '../../../src/web/ai-crawlers.ts';
import { parseRobotsTxt } from '../../../src/web/robots.ts';

/** robots.txt access per crawler: RFC 9309 group choice and matching, and the line that decides. */

const URL = 'https://www.acme.com/robots.txt';
const access = (text: string, agent: string) => parseRobotsTxt(URL, text).access(agent);

describe('robots.txt access', () => {
  it('takes the crawler’s own group over *, case-insensitively, merging its groups', () => {
    const text = ['User-agent: *', 'Disallow: /', '', 'user-agent: gptbot', 'Allow: /', '', 'User-agent: GPTBot', 'Disallow: /private'].join('\n');
    expect(access(text, 'GPTBot')).toEqual({ access: 'partial', decidingLine: { line: 8, text: 'Disallow: /private' }, group: 'gptbot' });
    expect(access(text, 'ClaudeBot')).toEqual({ access: 'blocked', decidingLine: { line: 2, text: 'Disallow: /' }, group: '*' });
  });

  it('lets a group of several user-agents apply to each', () => {
    const text = 'User-agent: CCBot\nUser-agent: Bytespider\nDisallow: /\n';
    expect(access(text, 'Bytespider').access).toBe('blocked');
    expect(access(text, 'CCBot').access).toBe('blocked');
    expect(access(text, 'GPTBot')).toEqual({ access: 'allowed', decidingLine: null, group: null });
  });

  it('calls a blocked root with an allowed path partial, and a longer Allow wins', () => {
    expect(access('User-agent: *\nDisallow: /\nAllow: /blog/\n', 'GPTBot')).toMatchObject({ access: 'partial', decidingLine: { line: 2 } });
    // Only the home page allowed: the Disallow is what the customer reads.
    expect(access('User-agent: *\nDisallow: /\nAllow: /$\n', 'GPTBot')).toMatchObject({ access: 'partial', decidingLine: { line: 2, text: 'Disallow: /' } });
    // Same length: Allow wins the tie (RFC 9309 2.2.2).
    expect(access('User-agent: *\nDisallow: /\nAllow: /\n', 'GPTBot')).toMatchObject({ access: 'partial', decidingLine: { line: 2 } });
    expect(access('User-agent: *\nAllow: /\n', 'GPTBot')).toEqual({ access: 'allowed', decidingLine: { line: 2, text: 'Allow: /' }, group: '*' });
  });

  it('reads an empty Disallow as nothing disallowed, and ignores comments, junk and a BOM', () => {
    expect(access('User-agent: *\nDisallow:\n', 'GPTBot')).toEqual({ access: 'allowed', decidingLine: null, group: '*' });
    const noisy = '\uFEFFUser-agent: GPTBot # OpenAI\nthis is not a rule\n<html>\nDisallow: / # all of it\n';
    const robots = parseRobotsTxt(URL, noisy);
    expect(robots.access('GPTBot')).toEqual({ access: 'blocked', decidingLine: { line: 4, text: 'Disallow: / # all of it' }, group: 'gptbot' });
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
    const robots = parseRobotsTxt(URL, 'Sitemap: https://www.acme.com/a.xml\nUser-agent: *\nDisallow: /x\nSitemap: https://cdn.acme.com/b.xml\nUser-agent: GPTBot\nDisal', true);
    expect(robots.sitemaps).toEqual(['https://www.acme.com/a.xml', 'https://cdn.acme.com/b.xml']);
    expect(robots.access('GPTBot')).toMatchObject({ group: '*' });
  });

  it('decides for every listed crawler (robots-parser’s rule table still has the shape read)', () => {
    const text = AI_CRAWLERS.map((c, i) => `User-agent: ${c.agent}\n${i % 2 ? 'Disallow: /' : 'Disallow: /private'}\n`).join('\n');
    const robots = parseRobotsTxt(URL, text);
    for (const [i, c] of AI_CRAWLERS.entries()) {
      expect(robots.access(c.agent), c.agent).toMatchObject({ access: i % 2 ? 'blocked' : 'partial', group: c.agent.toLowerCase() });
    }
  });
});
