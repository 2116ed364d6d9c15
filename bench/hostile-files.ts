/**
 * bench/hostile-files: each hostile file of issue 24 ("web") through its
 * parser, here and on a parsing thread, at the size that stalled or killed
 * the worker before: 1 MiB of `[` as llms.txt; 500 KiB of `User-agent`
 * lines then rules, and 400 KB of `*` rules with the allow check of an
 * import's 500 pages of 2,000-character URLs, as robots.txt; 4 million
 * nested elements as a sitemap; 2 MB of nested `<div>` as a page. Also a
 * real sitemap at the protocol's 50 MB through the thread. Target: each
 * well under a second (the thread's deadline is 20 s).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { AI_CRAWLERS } from '../src/web/ai-crawlers.ts';
import { readTitle } from '../src/web/html-title.ts';
import { readLlmsTxt } from '../src/web/llms-txt.ts';
import { parseRobotsTxt, ROBOTS_MAX_BYTES } from '../src/web/robots.ts';
import { createSiteFilePool, createSiteFileReader } from '../src/web/site-file-pool.ts';
import { parseSitemap } from '../src/web/sitemap-parser.ts';
import { runBench } from './lib.ts';

const MiB = 1 << 20;
const encode = (text: string) => new TextEncoder().encode(text);
async function* pieces(text: string): AsyncGenerator<Uint8Array> {
  const bytes = encode(text);
  for (let at = 0; at < bytes.length; at += 64 * 1024) yield bytes.subarray(at, at + 64 * 1024);
}
const ms = (started: number) => Math.round((performance.now() - started) * 10) / 10;
async function timed(run: () => unknown): Promise<{ ms: number; outcome: string }> {
  const started = performance.now();
  try {
    await run();
    return { ms: ms(started), outcome: 'read' };
  } catch (err) {
    return { ms: ms(started), outcome: (err as Error).message.slice(0, 120) };
  }
}

async function main() {
  const pages = Array.from({ length: 500 }, (_, i) => `https://acme.com/${'a'.repeat(2000)}${i}`);
  const files = {
    llms: `# Acme\n${'['.repeat(MiB)}`,
    robotsAgents: `${'User-agent: GPTBot\n'.repeat(12_000)}${'Disallow: /private\n'.repeat(20_000)}`.slice(
      0,
      ROBOTS_MAX_BYTES,
    ),
    robotsStars: `User-agent: *\n${`Disallow: /${'*'.repeat(1000)}x\n`.repeat(400)}`,
    sitemapDeep: `<urlset>${'<a>'.repeat(4_000_000)}`,
    pageDeep: `<html><head>${'<div>'.repeat((2 * MiB) / 5)}`,
  };
  const robots = (text: string) => ({
    url: 'https://acme.com/robots.txt',
    text,
    truncated: text.length >= ROBOTS_MAX_BYTES,
  });
  const here = {
    llms: await timed(() => readLlmsTxt(files.llms, 'text/plain')),
    robotsAgents: await timed(() => {
      const parsed = parseRobotsTxt('https://acme.com/robots.txt', files.robotsAgents, true);
      return AI_CRAWLERS.map((c) => parsed.access(c.agent));
    }),
    robotsStarsAllowCheck: await timed(() => {
      const parsed = parseRobotsTxt('https://acme.com/robots.txt', files.robotsStars);
      for (const url of pages) parsed.isAllowed(url, 'SightlineBot');
    }),
    sitemapDeep: await timed(() => parseSitemap(pieces(files.sitemapDeep), 'https://acme.com/sitemap.xml')),
    pageDeep: await timed(() => readTitle(pieces(files.pageDeep))),
  };
  const pool = createSiteFilePool();
  const reader = createSiteFileReader({ deadlineMs: 20_000, pool });
  await reader.llmsTxt('# warm', null);
  // 50,000 entries of about 1,000 bytes: the protocol's two limits at once.
  const parts = ['<urlset>'];
  for (let i = 0; i < 50_000; i++)
    parts.push(`<url><loc>https://acme.com/${'p'.repeat(920)}${i}</loc><lastmod>2026-10-01</lastmod></url>`);
  parts.push('</urlset>');
  const big = encode(parts.join(''));
  const bigBytes = big.length;
  const thread = {
    llms: await timed(() => reader.llmsTxt(files.llms, 'text/plain')),
    robotsAgents: await timed(() =>
      reader.robots(
        robots(files.robotsAgents),
        AI_CRAWLERS.map((c) => c.agent),
      ),
    ),
    robotsStarsAllowCheck: await timed(() => reader.robotsAllows(robots(files.robotsStars), 'SightlineBot', pages)),
    sitemapDeep: await timed(() => reader.sitemap('https://acme.com/sitemap.xml', encode(files.sitemapDeep))),
    pageDeep: await timed(() => reader.title('https://acme.com/', encode(files.pageDeep))),
    sitemap50MB: { ...(await timed(() => reader.sitemap('https://acme.com/big.xml', big))), bytes: bigBytes },
  };
  await pool.close();
  console.log(
    JSON.stringify(
      {
        bench: 'hostile-files',
        date: new Date().toISOString().slice(0, 10),
        machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load ${os.loadavg()[0]?.toFixed(1)}`,
        bytes: Object.fromEntries(Object.entries(files).map(([k, v]) => [k, Buffer.byteLength(v)])),
        hereMs: here,
        threadMs: thread,
      },
      null,
      2,
    ),
  );
}

runBench(main);
