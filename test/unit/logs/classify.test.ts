import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentOf, LOGGED_AGENTS } from '../../../src/logs/agents.ts';
import { isAsset, pathOf } from '../../../src/logs/paths.ts';
import { AddressRanges, parseRangesFile, RangesFileError } from '../../../src/logs/ranges.ts';
import { assistantOf } from '../../../src/logs/referrers.ts';
import { AI_CRAWLERS } from '../../../src/web/ai-crawlers.ts';

/** User-Agents to agents, Referers to assistants, published ranges to verified hits. */

describe('agents by User-Agent', () => {
  it('knows every agent of /crawlers that has a crawler of its own, from the one table', () => {
    expect(new Set(LOGGED_AGENTS)).toEqual(
      new Set(AI_CRAWLERS.filter((c) => c.kind !== 'control').map((c) => c.agent)),
    );
    for (const agent of LOGGED_AGENTS)
      expect(agentOf(`Mozilla/5.0 (compatible; ${agent}/1.0; +https://example.com/bot)`)).toBe(agent);
  });

  it.each([
    [
      'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
      'GPTBot',
    ],
    ['gptbot/1.0', 'GPTBot'],
    ['Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)', 'Bingbot'],
    ['Googlebot-News', 'Googlebot'],
    ['Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)', 'Bytespider'],
    ['NotGPTBot/1.0', null],
    ['GPTBotanist/2.0', null],
    ['Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)', null],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      null,
    ],
    ['Google-Extended', null],
    ['', null],
  ])('%s is %s', (ua, agent) => {
    expect(agentOf(ua)).toBe(agent);
  });
});

describe('assistants by Referer and utm_source', () => {
  it.each([
    ['https://chatgpt.com/', '/pricing', 'ChatGPT'],
    ['https://chat.openai.com/c/123', '/', 'ChatGPT'],
    ['https://www.perplexity.ai/search?q=x', '/', 'Perplexity'],
    ['https://labs.perplexity.ai/', '/', 'Perplexity'],
    ['https://gemini.google.com/app', '/', 'Gemini'],
    ['https://www.google.com/', '/', null],
    ['https://notchatgpt.com/', '/', null],
    [null, '/pricing?utm_source=chatgpt.com', 'ChatGPT'],
    [null, '/pricing?a=1&utm_source=perplexity', 'Perplexity'],
    [null, '/pricing?xutm_source=chatgpt.com', null],
    [null, '/pricing?utm_source=%E0%A4%A', null],
    ['not a url', '/', null],
  ])('%s to %s is %s', (referer, target, assistant) => {
    expect(assistantOf(referer, target)).toBe(assistant);
  });
});

describe('pages', () => {
  it('is the path without its query, cut to a bound; absolute targets give their path', () => {
    expect(pathOf('/pricing?utm_source=chatgpt.com')).toBe('/pricing');
    expect(pathOf('https://www.acme.com/a/b?c#d')).toBe('/a/b');
    expect(pathOf('https://www.acme.com')).toBe('/');
    expect(pathOf('*')).toBeNull();
    expect(pathOf(`/${'a'.repeat(5000)}`)).toHaveLength(1024);
    // A JSON log can carry NUL and half a surrogate pair, which Postgres text refuses.
    expect(pathOf('/a\u0000b\ud800c')).toBe('/a\ufffdb\ufffdc');
    expect([isAsset('/app.CSS'), isAsset('/img/logo.png'), isAsset('/pricing'), isAsset('/v1.2/docs')]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });
});

describe('published ranges', () => {
  it('reads the companies’ JSON format (googlebot.json, gptbot.json)', () => {
    expect(parseRangesFile(readFileSync('test/fixtures/logs/googlebot.json', 'utf8'))).toEqual({
      prefixes: ['2001:4860:4801:10::/64', '66.249.64.0/19'],
      createdAt: '2026-11-01T00:00:00.000000',
    });
    expect(parseRangesFile('# OpenAI\n20.171.206.0/24\n52.230.152.0/24\n').prefixes).toEqual([
      '20.171.206.0/24',
      '52.230.152.0/24',
    ]);
    expect(parseRangesFile('["192.0.2.1", "2001:DB8::/32"]').prefixes).toEqual(['192.0.2.1/32', '2001:db8::/32']);
  });

  it('refuses files that are not ranges, saying which entry', () => {
    expect(() => parseRangesFile('{"prefixes": [{"ipv4Prefix": "300.1.1.1/24"}]}')).toThrow(
      /entry 1 is not an address prefix/,
    );
    expect(() => parseRangesFile('{"prefixes": [{"ipv4Prefix": "10.0.0.0/33"}]}')).toThrow(RangesFileError);
    expect(() => parseRangesFile('{"items": []}')).toThrow(/no "prefixes" list/);
    expect(() => parseRangesFile('{nope')).toThrow(/not JSON/);
    expect(() => parseRangesFile('')).toThrow(/no address prefixes/);
  });

  it('verifies v4, v6, IPv4-mapped and bracketed addresses; unverifiable without ranges or an address', () => {
    const ranges = new AddressRanges([
      { agent: 'Googlebot', prefix: '66.249.64.0/19' },
      { agent: 'Googlebot', prefix: '2001:4860:4801:10::/64' },
    ]);
    expect(ranges.check('Googlebot', '66.249.66.1')).toBe('verified');
    expect(ranges.check('Googlebot', '::ffff:66.249.66.1')).toBe('verified');
    expect(ranges.check('Googlebot', '[2001:4860:4801:10::1]')).toBe('verified');
    expect(ranges.check('Googlebot', '66.249.66.1:5123')).toBe('verified');
    expect(ranges.check('Googlebot', '203.0.113.9')).toBe('spoofed');
    expect(ranges.check('Googlebot', 'not-an-ip')).toBe('unverifiable');
    expect(ranges.check('Googlebot', null)).toBe('unverifiable');
    expect(ranges.check('GPTBot', '66.249.66.1')).toBe('unverifiable');
    expect([ranges.covers('Googlebot'), ranges.covers('GPTBot')]).toEqual([true, false]);
  });
});
