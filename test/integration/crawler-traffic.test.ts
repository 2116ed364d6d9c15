import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { loadRangesFile } from '../../src/domain/traffic/ranges.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Crawler traffic through the API: a log from each documented source
 * (nginx and Apache combined, Cloudflare Logpush, Vercel drains, Cloud Run,
 * plain JSON) posted as text or gzip or pulled through the site-fetch
 * guard; hostile logs; each request counted once; spoofed User-Agents
 * against published ranges; the report's join with pages and citations;
 * roles and another workspace's project.
 */

const clock = fixedClock('2026-11-26T12:00:00Z');
const fixture = (name: string) => readFileSync(`test/fixtures/logs/${name}`, 'utf8');

let app: TestApp;
let site: FixtureSite;
let ws: Org;
let other: Org;
let siteId: number;
let otherSiteId: number;

async function newSite(org: Org, name: string, url: string): Promise<number> {
  const res = await app.request('POST', `/orgs/${org.orgId}/projects`, {
    key: org.keys.admin,
    body: { name, url },
  });
  expect(res.status, res.text).toBe(200);
  return res.body.project.id;
}

const post = (contents: string, format = 'auto', id = siteId, key = ws.keys.member) =>
  app.request('POST', `/projects/${id}/crawler-logs`, { key, body: { contents, format } });

async function postGzip(bytes: Buffer, id = siteId, query = '') {
  const res = await fetch(`${app.url}/projects/${id}/crawler-logs${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.keys.member}`, 'content-type': 'application/gzip' },
    body: bytes,
  });
  // Response bodies are whatever the endpoint returns; tests assert on their shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return { status: res.status, body: (await res.json()) as any };
}

/** The import once it has ended (the POST answers it when done within SITE_JOB_WAIT_MS). */
async function finished(importId: number, id = siteId) {
  const res = await waitFor(
    () => app.request('GET', `/projects/${id}/crawler-logs?perPage=200`, { key: ws.keys.viewer }),
    (r) => ['done', 'failed'].includes(r.body.imports.find((i: { id: number }) => i.id === importId)?.state),
    20_000,
  );
  return res.body.imports.find((i: { id: number }) => i.id === importId);
}

const traffic = (query = 'period=month&start=2026-11-01', id = siteId, key = ws.keys.viewer) =>
  app.request('GET', `/projects/${id}/crawler-traffic?${query}`, { key });

beforeAll(async () => {
  site = await startFixtureSite({ routes: { '/robots.txt': 'User-agent: *\nDisallow:\n' } });
  app = await startTestApp({
    clock,
    workers: true,
    env: {
      SITE_FETCH_MAP: `brightdesk.com=${site.url},drain.example=${site.url}`,
      SITE_FETCH_TIMEOUT_MS: '2000',
      SITE_JOB_WAIT_MS: '10000',
    },
  });
  ws = await seedOrg(app.ctx);
  other = await seedOrg(app.ctx);
  siteId = await newSite(ws, 'Brightdesk', 'https://www.brightdesk.com/');
  otherSiteId = await newSite(other, 'Elsewhere', 'https://elsewhere-shop.com/');
});
afterAll(async () => {
  await app?.close();
  await site?.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const agentOf = (body: { agents: { agent: string }[] }, name: string): any => body.agents.find((a) => a.agent === name);

describe('importing each documented source', () => {
  it('reads an nginx combined log posted as text', async () => {
    const res = await post(fixture('nginx-combined.log'));
    expect(res.status).toBe(200);
    expect(res.body.import).toMatchObject({
      state: 'done',
      source: 'upload',
      format: 'auto',
      formats: ['combined'],
      lines: 16,
      counted: 12,
      duplicates: 0,
      skipped: 0,
      other: 4,
    });
    expect(res.body.import).toMatchObject({
      agentHits: 9,
      referrals: 3,
      firstDay: '2026-11-20',
      lastDay: '2026-11-20',
      errors: [],
      error: null,
    });
  });

  it('reads an Apache combined log sent as a gzip file, its format in the query', async () => {
    const res = await postGzip(gzipSync(fixture('apache-combined.log')), siteId, '?format=combined');
    expect(res.status).toBe(200);
    expect(res.body.import).toMatchObject({
      state: 'done',
      format: 'combined',
      lines: 15,
      counted: 15,
      agentHits: 14,
      referrals: 1,
      skipped: 0,
    });
  });

  it.each([
    ['cloudflare-logpush.ndjson', { lines: 4, counted: 3, other: 1 }],
    ['vercel-drain.ndjson', { lines: 4, counted: 3, other: 1 }],
    ['plain.ndjson', { lines: 3, counted: 3, other: 0 }],
    ['cloud-run.ndjson', { lines: 1, counted: 1, other: 0 }],
  ])('reads %s as JSON', async (name, counts) => {
    const res = await post(fixture(name), 'json');
    expect(res.body.import).toMatchObject({ state: 'done', formats: ['json'], skipped: 0, duplicates: 0, ...counts });
  });

  it('counts a request once: a Vercel batch of entries already imported, and the nginx log again', async () => {
    const batch = await post(fixture('vercel-drain-batch.json'));
    expect(batch.body.import).toMatchObject({ state: 'done', lines: 1, counted: 0, duplicates: 3, other: 1 });
    const before = (await traffic()).body;
    const again = await post(fixture('nginx-combined.log'));
    expect(again.body.import).toMatchObject({ state: 'done', lines: 16, counted: 0, duplicates: 12, other: 4 });
    expect((await traffic()).body.agents).toEqual(before.agents);
  });

  it('reports hits per agent, pages, status classes and top pages; referrals per assistant and landing page', async () => {
    const res = await traffic();
    expect(res.status).toBe(200);
    const body = res.body;
    expect(body).toMatchObject({ period: 'month', start: '2026-11-01', end: '2026-11-30', periods: ['2026-11-01'] });
    expect(agentOf(body, 'GPTBot')).toMatchObject({
      company: 'OpenAI',
      kind: 'training',
      hits: 5,
      pages: 3,
      status: { ok: 4, redirect: 0, clientError: 1, serverError: 0 },
      verified: null,
      checked: 0,
      spoofed: 0,
    });
    expect(agentOf(body, 'GPTBot').topPages[0]).toEqual({
      path: '/pricing',
      url: 'https://brightdesk.com/pricing',
      hits: 3,
      status: { ok: 3, redirect: 0, clientError: 0, serverError: 0 },
    });
    expect(agentOf(body, 'ClaudeBot')).toMatchObject({
      hits: 4,
      status: { ok: 2, redirect: 1, clientError: 1, serverError: 0 },
    });
    expect(body.agents.map((a: { agent: string }) => a.agent)).not.toContain('Google-Extended');
    expect(body.totals).toMatchObject({ hits: 30, referrals: 7 });
    expect(
      body.referrals.assistants.map((a: { assistant: string; visits: number }) => [a.assistant, a.visits]),
    ).toEqual([
      ['ChatGPT', 3],
      ['Claude', 1],
      ['Copilot', 1],
      ['Gemini', 1],
      ['Perplexity', 1],
    ]);
    expect(body.referrals.assistants[0].pages.map((p: { path: string }) => p.path).sort()).toEqual([
      '/customers',
      '/integrations/slack',
      '/pricing',
    ]);
    expect(body.referrals.pages.find((p: { path: string }) => p.path === '/integrations/slack')).toMatchObject({
      visits: 2,
      assistants: [
        { assistant: 'ChatGPT', visits: 1 },
        { assistant: 'Gemini', visits: 1 },
      ],
    });
    // Errors first (then redirects): /features served ClaudeBot a 404 and Bytespider a 304, /api/search a 500...
    expect(body.statusPages.map((p: { path: string }) => p.path)).toEqual([
      '/features',
      '/api/search',
      '/old-page',
      '/pricing',
      '/blog/',
    ]);
    expect(body.statusPages.find((p: { path: string }) => p.path === '/blog/')).toMatchObject({
      redirect: 1,
      clientError: 0,
      serverError: 0,
    });
    expect(body.lastImport).toMatchObject({ state: 'done', counted: 0 });
  });

  it('answers each period with the days it holds, and trends carry crawler hits per period', async () => {
    const day = await traffic('period=day&start=2026-11-22');
    expect(day.body.totals).toMatchObject({ hits: 2, referrals: 1 });
    expect(day.body.periods).toEqual(['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24']);
    const opened = await traffic('period=week');
    expect(opened.body.start).toBe('2026-11-23');
    const trends = await app.request('GET', `/projects/${siteId}/trends?period=week&start=2026-11-23`, {
      key: ws.keys.viewer,
    });
    expect(trends.status).toBe(200);
    expect(trends.body.crawlerHits).toHaveLength(10);
    expect(trends.body.crawlerHits.slice(-2)).toEqual([
      { start: '2026-11-16', hits: 25, spoofed: 0, referrals: 5 },
      { start: '2026-11-23', hits: 5, spoofed: 0, referrals: 2 },
    ]);
  });
});

const line = (ip: string, day: string, path: string, ua: string, status = 200, referer = '-') =>
  `${ip} - - [${day}:09:00:00 +0000] "GET ${path} HTTP/1.1" ${status} 100 "${referer}" "${ua}"`;
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';

describe('spoofed User-Agents', () => {
  it('marks hits from outside the published ranges as spoofed, once the operator loads them', async () => {
    const loaded = await loadRangesFile(app.ctx, {
      text: fixture('gptbot.json'),
      file: 'test/fixtures/logs/gptbot.json',
    });
    expect(loaded).toMatchObject({ agent: 'GPTBot', prefixes: 2, source: 'gptbot.json' });
    const log = [
      line('198.51.100.23', '25/Nov/2026', '/pricing', GPTBOT),
      line('198.51.100.24', '25/Nov/2026', '/features', GPTBOT),
      line('[2001:db8:1::7]', '25/Nov/2026', '/customers', GPTBOT),
      line('203.0.113.66', '25/Nov/2026', '/admin/secret', GPTBOT),
      line('203.0.113.67', '25/Nov/2026', '/wp-admin', GPTBOT, 404),
    ].join('\n');
    const imported = (await post(log)).body.import;
    expect(imported, JSON.stringify(imported)).toMatchObject({ state: 'done', counted: 5 });
    const day = (await traffic('period=day&start=2026-11-25')).body;
    expect(agentOf(day, 'GPTBot')).toMatchObject({
      hits: 5,
      checked: 5,
      spoofed: 2,
      verified: 60,
      verifiedLow: expect.any(Number),
      verifiedHigh: expect.any(Number),
    });
    const gpt = agentOf(day, 'GPTBot');
    expect(gpt.verifiedLow).toBeLessThan(60);
    expect(gpt.verifiedHigh).toBeGreaterThan(60);
    // A page only a spoofed GPTBot fetched was not crawled.
    expect(day.crawledNotCited.map((p: { path: string }) => p.path)).not.toContain('/admin/secret');
    // Hits imported before the ranges were loaded stay unverifiable: the share is of hits checked.
    const month = (await traffic()).body;
    expect(agentOf(month, 'GPTBot')).toMatchObject({ hits: 10, checked: 5, verified: 60 });
    const trends = await app.request('GET', `/projects/${siteId}/trends?period=week&start=2026-11-23`, {
      key: ws.keys.viewer,
    });
    expect(trends.body.crawlerHits.at(-1)).toMatchObject({ hits: 10, spoofed: 2 });
  });
});

describe('the join with pages and citations', () => {
  it('lists pages crawled that no answer cites, and pages cited that no agent fetched', async () => {
    const db = app.ctx.db;
    const page = (path: string, title: string) => ({
      siteId,
      url: `https://www.brightdesk.com${path}`,
      normalizedUrl: `https://brightdesk.com${path}`,
      path,
      section: path.split('/')[1] ?? '',
      title,
    });
    await db
      .insertInto('pages')
      .values([
        page('/pricing', 'Pricing'),
        page('/features', 'Features'),
        page('/security', 'Security'),
        page('/legacy', 'Legacy'),
      ])
      .execute();
    // The answers of November cite /pricing, /security, /legacy and /integrations/slack as own pages.
    await db
      .insertInto('rollupPagePeriod')
      .values(
        [
          ['https://brightdesk.com/pricing', 4],
          ['https://brightdesk.com/security', 2],
          ['https://brightdesk.com/legacy', 3],
          ['https://brightdesk.com/integrations/slack', 1],
        ].map(([url, answers]) => ({
          siteId,
          period: 'month' as const,
          start: '2026-11-01',
          competitorId: 0,
          url: url as string,
          answers: answers as number,
        })),
      )
      .execute();
    // /legacy was crawled in October, not in November.
    expect((await post(line('198.51.100.23', '15/Oct/2026', '/legacy', GPTBOT))).body.import).toMatchObject({
      counted: 1,
    });
    const body = (await traffic()).body;
    const notCited = body.crawledNotCited.map((p: { path: string }) => p.path);
    expect(notCited).toContain('/features');
    expect(notCited).toContain('/customers');
    expect(notCited).not.toContain('/pricing');
    // Not pages: robots.txt, an image, an API call; a 404 only is no page either.
    for (const path of ['/robots.txt', '/images/logo.png', '/api/search', '/old-page'])
      expect(notCited).not.toContain(path);
    expect(body.crawledNotCited.find((p: { path: string }) => p.path === '/features')).toMatchObject({
      title: 'Features',
      pageId: expect.any(Number),
      agents: expect.arrayContaining(['Googlebot', 'Applebot']),
    });
    expect(body.crawledNotCitedTotal).toBe(notCited.length);
    expect(body.citedNotCrawled).toEqual([
      {
        url: 'https://brightdesk.com/legacy',
        path: '/legacy',
        title: 'Legacy',
        pageId: expect.any(Number),
        answers: 3,
        lastCrawled: '2026-10-15',
      },
      {
        url: 'https://brightdesk.com/security',
        path: '/security',
        title: 'Security',
        pageId: expect.any(Number),
        answers: 2,
        lastCrawled: null,
      },
      {
        url: 'https://brightdesk.com/integrations/slack',
        path: '/integrations/slack',
        title: null,
        pageId: null,
        answers: 1,
        lastCrawled: null,
      },
    ]);
    expect(body.citedNotCrawledTotal).toBe(3);
  });
});

describe('hostile logs through the API', () => {
  it('counts a log with 30% malformed lines: the rest counted, a sample of the skipped with line numbers', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) =>
      i % 10 < 3 ? `garbage line ${i} \u0000\u00ff` : line(`198.51.100.${i % 100}`, '24/Nov/2026', `/m/${i}`, GPTBOT),
    );
    const res = await post(lines.join('\n'));
    expect(res.body.import).toMatchObject({ state: 'done', lines: 1000, counted: 700, skipped: 300 });
    expect(res.body.import.errors).toHaveLength(20);
    expect(res.body.import.errors[0]).toEqual({ line: 1, reason: 'combined: not a combined log line: no [time]' });
  });

  it('skips a line of 1 MB and reads the lines around it', async () => {
    const res = await post(
      [
        line('198.51.100.1', '24/Nov/2026', '/before', GPTBOT),
        `1.2.3.4 ${'x'.repeat(1_000_000)}`,
        line('198.51.100.1', '24/Nov/2026', '/after', GPTBOT),
      ].join('\n'),
    );
    expect(res.body.import).toMatchObject({
      state: 'done',
      lines: 3,
      counted: 2,
      skipped: 1,
      errors: [{ line: 2, reason: 'longer than 512 KiB; not read' }],
    });
  });

  it('reads binary garbage as skipped lines', async () => {
    const junk = Buffer.alloc(1 << 20);
    for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + (i >> 3)) & 0xff;
    const res = await postGzip(gzipSync(junk));
    expect(res.status).toBe(200);
    expect(res.body.import.state).toBe('done');
    expect(res.body.import.counted).toBe(0);
    expect(res.body.import.skipped).toBeGreaterThan(0);
  });

  it('ends a truncated gzip file failed, with the lines before the cut counted', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      line(`198.51.100.${i % 100}`, '23/Nov/2026', `/t/${i}`, GPTBOT),
    );
    const whole = gzipSync(lines.join('\n'));
    const res = await postGzip(whole.subarray(0, Math.floor(whole.length * 0.6)));
    const done =
      res.body.import.state === 'running' || res.body.import.state === 'queued'
        ? await finished(res.body.import.id)
        : res.body.import;
    expect(done.state).toBe('failed');
    expect(done.error).toMatch(/truncated/);
    expect(done.counted).toBeGreaterThan(1000);
    expect(done.counted).toBeLessThan(20_000);
  });

  it('refuses a gzip body that is not gzip (400), contents over 2,000,000 characters (422) and a body past the limit (413)', async () => {
    expect((await postGzip(Buffer.from('plain text, not gzip'))).status).toBe(400);
    const long = await post('x'.repeat(2_000_001));
    expect(long.status).toBe(422);
    expect(long.body.fields.contents).toMatch(/2,000,000 characters/);
    const huge = await postGzip(Buffer.concat([Buffer.from([0x1f, 0x8b]), Buffer.alloc(5 << 20)]));
    expect(huge.status).toBe(413);
  });
});

describe('pulling a log from an https address', () => {
  it('streams a gzip log through the site-fetch guard; the signature of a presigned URL is not kept', async () => {
    const log = [
      line('198.51.100.40', '24/Nov/2026', '/pulled', GPTBOT),
      line('192.0.2.1', '24/Nov/2026', '/pulled', 'Mozilla/5.0 Safari', 200, 'https://chatgpt.com/'),
    ].join('\n');
    site.set('/logs/access.log.gz', { body: gzipSync(log), type: 'application/gzip' });
    const res = await app.request('POST', `/projects/${siteId}/crawler-logs/pull`, {
      key: ws.keys.member,
      body: { url: 'https://drain.example/logs/access.log.gz?X-Amz-Signature=secret123' },
    });
    expect(res.status).toBe(200);
    expect(res.body.import).toMatchObject({
      state: 'done',
      source: 'pull',
      url: 'https://drain.example/logs/access.log.gz',
      counted: 2,
      agentHits: 1,
      referrals: 1,
    });
    const stored = await app.ctx.db
      .selectFrom('crawlerLogImports')
      .select(['pullUrl', 'payload'])
      .where('id', '=', res.body.import.id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ pullUrl: null, payload: null });
    expect(site.requests.find((r) => r.path.startsWith('/logs/access.log.gz'))?.userAgent).toMatch(/^SightlineBot\//);
  });

  it('refuses an address that redirects to a private address', async () => {
    site.set('/logs/redirect', {
      handle: (_req, res) => res.writeHead(302, { location: 'https://127.0.0.1/admin/logs' }).end(),
    });
    const res = await app.request('POST', `/projects/${siteId}/crawler-logs/pull`, {
      key: ws.keys.member,
      body: { url: 'https://drain.example/logs/redirect' },
    });
    expect(res.status).toBe(200);
    expect(res.body.import).toMatchObject({ state: 'failed', counted: 0 });
    expect(res.body.import.error).toMatch(/not fetched|refused/);
    expect(site.requests.some((r) => r.path === '/admin/logs')).toBe(false);
  });

  it('ends failed when the address answers 404, and refuses what is not an address (422)', async () => {
    const res = await app.request('POST', `/projects/${siteId}/crawler-logs/pull`, {
      key: ws.keys.member,
      body: { url: 'https://drain.example/logs/missing.log' },
    });
    expect(res.body.import).toMatchObject({ state: 'failed', error: 'the log address answered 404, not 200' });
    const bad = await app.request('POST', `/projects/${siteId}/crawler-logs/pull`, {
      key: ws.keys.member,
      body: { url: 'file:///etc/passwd' },
    });
    expect(bad.status).toBe(422);
  });
});

describe('who may do what', () => {
  it('lets viewers read and members import; a viewer’s import is 403', async () => {
    expect((await post(line('198.51.100.1', '24/Nov/2026', '/x', GPTBOT), 'auto', siteId, ws.keys.viewer)).status).toBe(
      403,
    );
    expect((await traffic(undefined, siteId, ws.keys.viewer)).status).toBe(200);
    expect((await app.request('GET', `/projects/${siteId}/crawler-logs`, { key: ws.keys.viewer })).status).toBe(200);
  });

  it('answers 404 for another workspace’s project, to every route', async () => {
    expect((await post('x', 'auto', otherSiteId)).status).toBe(404);
    expect((await traffic(undefined, otherSiteId)).status).toBe(404);
    expect((await app.request('GET', `/projects/${otherSiteId}/crawler-logs`, { key: ws.keys.viewer })).status).toBe(
      404,
    );
    expect(
      (
        await app.request('POST', `/projects/${otherSiteId}/crawler-logs/pull`, {
          key: ws.keys.member,
          body: { url: 'https://drain.example/x' },
        })
      ).status,
    ).toBe(404);
  });

  it('holds at most 20 imports of a project waiting (429 with Retry-After)', async () => {
    const third = await newSite(ws, 'Waiting', 'https://waiting-shop.com/');
    await app.ctx.db
      .insertInto('crawlerLogImports')
      .values(
        Array.from({ length: 20 }, () => ({
          siteId: third,
          source: 'upload' as const,
          format: 'auto' as const,
          requestedAt: clock.now(),
        })),
      )
      .execute();
    const res = await post(line('198.51.100.1', '24/Nov/2026', '/x', GPTBOT), 'auto', third);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('10');
    // Queued imports whose job was lost stop counting after a day; a running one with no progress for an hour is failed.
    const first = await app.ctx.db
      .selectFrom('crawlerLogImports')
      .select('id')
      .where('siteId', '=', third)
      .orderBy('id')
      .limit(1)
      .executeTakeFirstOrThrow();
    await app.ctx.db
      .updateTable('crawlerLogImports')
      .set({ status: 'running', progressedAt: clock.now() })
      .where('id', '=', first.id)
      .execute();
    clock.advance(2 * 3600_000);
    try {
      expect((await post(line('198.51.100.1', '24/Nov/2026', '/y', GPTBOT), 'auto', third)).status).toBe(200);
      const errors = async () =>
        (
          await app.ctx.db
            .selectFrom('crawlerLogImports')
            .select('error')
            .where('siteId', '=', third)
            .where('status', '=', 'failed')
            .execute()
        ).map((f) => f.error);
      expect(await errors()).toEqual([expect.stringMatching(/no progress for an hour/)]);
      clock.advance(23 * 3600_000);
      expect((await post(line('198.51.100.1', '24/Nov/2026', '/z', GPTBOT), 'auto', third)).status).toBe(200);
      expect((await errors()).filter((e) => /its job was lost/.test(e ?? ''))).toHaveLength(19);
    } finally {
      clock.set('2026-11-26T12:00:00Z');
    }
  });
});

describe('the share page', () => {
  it('gains an "AI crawlers" section: agents with their verified share, referrals, the join with citations', async () => {
    const created = await app.request('POST', `/projects/${siteId}/shares`, {
      key: ws.keys.admin,
      body: { label: 'Traffic' },
    });
    expect(created.status).toBe(200);
    const token = new URL(created.body.url).pathname.split('/').pop();
    const res = await fetch(`${app.url}/share/${token}?period=month&start=2026-11-01`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('<h2>AI crawlers</h2>');
    // GPTBot's hits by now include the hostile logs' and the pull's; its verified share comes with its 95% range.
    expect(page).toMatch(
      /<tr data-agent="GPTBot">\s*<td>GPTBot<\/td>\s*<td>OpenAI<\/td>\s*<td class="num">[\d,]+<\/td>\s*<td class="num">[\d,]+<\/td>\s*<td class="num">\d+\.\d% <span class="muted">\(\d+\.\d–\d+\.\d%\)<\/span>/,
    );
    expect(page).toMatch(/<li>ChatGPT: \d+ visits<\/li>/);
    expect(page).toMatch(/Cited, not crawled \(3\)/);
  });
});
