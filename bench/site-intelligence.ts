/**
 * bench/site-intelligence: (1) a sitemap index of 50,000 URLs (five files of
 * 10,000, one gzipped) imported by the job's own function against a real
 * database, titles off, served by a local fixture site through
 * SITE_FETCH_MAP. Target: under 5 s. Also one file of 50,000 URLs and a
 * re-import where every page is already listed. (2) A robots.txt check of
 * the 20 listed AI crawlers (parse and decide each). Target: under 50 ms.
 */
import { BUSY } from '../src/domain/common/site-lock.ts';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { Redis } from 'ioredis';
import { loadConfig } from '../src/config.ts';
import { closeContext, createContext } from '../src/context.ts';
import { ensureDatabase, migrateToLatest } from '../src/db/migrate.ts';
import { requestSitemapImport } from '../src/domain/pages/imports.ts';
import { runSitemapImport } from '../src/domain/pages/sitemap-import.ts';
import { createOrg } from '../src/domain/orgs/orgs.ts';
import { startFixtureSite } from '../src/fixture-site/server.ts';
import { AI_CRAWLERS } from '../src/web/ai-crawlers.ts';
import { parseRobotsTxt, ROBOTS_MAX_BYTES } from '../src/web/robots.ts';
import { runBench } from './lib.ts';
import { loadJobTable } from '../jobs/load-table.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/sightline_bench';
const REDIS_PREFIX = 'sightline-bench-site';
const IMPORT_TARGET_MS = 5000;
const ROBOTS_TARGET_MS = 50;
const ORIGIN = 'https://www.bench-shop.com';

const urlset = (from: number, count: number) => {
  const parts = [
    '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n',
  ];
  for (let i = from; i < from + count; i++)
    parts.push(
      `  <url><loc>${ORIGIN}/products/category-${i % 40}/item-${i}</loc><lastmod>2026-10-${String((i % 28) + 1).padStart(2, '0')}</lastmod></url>\n`,
    );
  parts.push('</urlset>\n');
  return parts.join('');
};

/** About 300 lines: a group per crawler, a long wildcard group, comments: larger than most sites' files. */
function robotsTxt(): string {
  const lines = ['# bench robots.txt'];
  for (const [i, c] of AI_CRAWLERS.entries()) {
    lines.push('', `# ${c.company}`, `User-agent: ${c.agent}`);
    if (i % 3 === 0) lines.push('Disallow: /');
    if (i % 3 === 1) lines.push('Disallow: /private/', 'Disallow: /*.pdf$', 'Allow: /private/press/');
    if (i % 3 === 2) lines.push('Allow: /', 'Disallow: /checkout');
  }
  lines.push('', 'User-agent: *');
  for (let i = 0; i < 150; i++)
    lines.push(i % 5 === 0 ? `Allow: /shop/*/item-${i}$` : `Disallow: /section-${i}/*?sort=`);
  lines.push('', `Sitemap: ${ORIGIN}/sitemap_index.xml`);
  return lines.join('\n');
}

function robotsCheck(text: string, runs: number) {
  const times: number[] = [];
  let blocked = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const robots = parseRobotsTxt(`${ORIGIN}/robots.txt`, text, text.length >= ROBOTS_MAX_BYTES);
    const results = AI_CRAWLERS.map((c) => robots.access(c.agent));
    times.push(performance.now() - started);
    blocked = results.filter((r) => r.access === 'blocked').length;
  }
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((times[Math.min(times.length - 1, Math.floor(q * times.length))] as number) * 1000) / 1000;
  return {
    agents: AI_CRAWLERS.length,
    lines: text.split('\n').length,
    bytes: Buffer.byteLength(text),
    runs,
    blocked,
    medianMs: at(0.5),
    p95Ms: at(0.95),
    maxMs: at(1),
  };
}

async function clearPrefix(redisUrl: string) {
  const redis = new Redis(redisUrl);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${REDIS_PREFIX}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

async function main() {
  const files = Array.from({ length: 5 }, (_, i) => urlset(i * 10_000, 10_000));
  const site = await startFixtureSite({
    routes: {
      '/robots.txt': robotsTxt(),
      '/sitemap_index.xml': `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${files
        .map((_, i) => `  <sitemap><loc>${ORIGIN}/sitemaps/products-${i}.xml${i === 4 ? '.gz' : ''}</loc></sitemap>`)
        .join('\n')}\n</sitemapindex>\n`,
      ...Object.fromEntries(
        files.map((body, i) =>
          i === 4
            ? [`/sitemaps/products-${i}.xml.gz`, { body: gzipSync(body), type: 'application/gzip' }]
            : [`/sitemaps/products-${i}.xml`, body],
        ),
      ),
    },
  });
  await ensureDatabase(DATABASE_URL);
  const config = loadConfig({
    DATABASE_URL,
    LOG_LEVEL: 'warn',
    REDIS_PREFIX,
    SITE_FETCH_MAP: `bench-shop.com=${site.url},bench-one.com=${site.url}`,
    SITE_FETCH_OUTBOUND: 'off',
    SITEMAP_TITLES_PER_RUN: '0',
  });
  const ctx = createContext(config, { role: 'cli', jobTable: loadJobTable, dbPoolSize: 2 });
  const { db } = ctx;
  try {
    await migrateToLatest(db);
    const stamp = Date.now();
    const org = await createOrg(ctx, { name: `Bench sitemap ${stamp}`, plan: 'enterprise' });
    const siteRow = await db
      .insertInto('sites')
      .values({ orgId: org.id, name: 'Bench shop', url: ORIGIN, domain: 'bench-shop.com' })
      .returningAll()
      .executeTakeFirstOrThrow();

    const timeImport = async () => {
      const { import: row } = await requestSitemapImport(ctx, siteRow, null, 'cli', { queue: false });
      const started = performance.now();
      const result = await runSitemapImport(ctx, siteRow.id, row.id);
      if (result === BUSY) throw new Error('the site is locked by another job');
      const ms = Math.round(performance.now() - started);
      if (result.state !== 'done') throw new Error(`import ${result.state}: ${result.error}`);
      return { ms, urls: result.urls, added: result.added };
    };
    const rssBefore = process.memoryUsage().rss;
    const first = await timeImport();
    const again = await timeImport();
    if (first.urls !== 50_000 || first.added !== 50_000 || again.added !== 0)
      throw new Error(`unexpected counts: ${JSON.stringify({ first, again })}`);

    // One file at the protocol's limit: a parse of 50,000 entries in a single stream.
    site.set('/robots.txt', `Sitemap: ${ORIGIN}/sitemap-one.xml\n`);
    site.set('/sitemap-one.xml', urlset(100_000, 50_000));
    await db.deleteFrom('pages').where('siteId', '=', siteRow.id).execute();
    const single = await timeImport();

    const robots = robotsCheck(robotsTxt(), 500);
    const junk = robotsCheck(
      `User-agent: GPTBot\nDisallow: /\n${'%% junk line %%\n'.repeat(40_000)}`.slice(0, ROBOTS_MAX_BYTES),
      50,
    );

    await db.deleteFrom('orgs').where('id', '=', org.id).execute();
    console.log(
      JSON.stringify(
        {
          bench: 'site-intelligence',
          date: new Date().toISOString().slice(0, 10),
          machine: `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
          sitemapIndex: {
            files: 5,
            urls: first.urls,
            importMs: first.ms,
            reimportAllKeptMs: again.ms,
            urlsPerSec: Math.round((50_000 / first.ms) * 1000),
          },
          singleFile50k: { importMs: single.ms },
          rssGrowthMb: Math.round((process.memoryUsage().rss - rssBefore) / 2 ** 20),
          maxRssMb: Math.round((process.resourceUsage().maxRSS * 1024) / 2 ** 20),
          robots,
          robotsJunk500KiB: junk,
          targets: {
            importUnderMs: IMPORT_TARGET_MS,
            importMet: first.ms < IMPORT_TARGET_MS,
            robotsUnderMs: ROBOTS_TARGET_MS,
            robotsMet: robots.maxMs < ROBOTS_TARGET_MS,
          },
        },
        null,
        2,
      ),
    );
  } finally {
    await closeContext(ctx);
    await clearPrefix(config.redisUrl);
    await site.close();
  }
}

runBench(main);
