import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requestCrawlerCheck, runCrawlerCheckTick } from '../../src/domain/crawlers/checks.ts';
import { runCrawlerCheck } from '../../src/domain/crawlers/run-check.ts';
import { createSiteFileReader, siteFileReaderFor, type SiteFileReader } from '../../src/web/site-file-pool.ts';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { AI_CRAWLERS } from '../../src/web/ai-crawlers.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Crawler checks against a local fixture site: access per AI crawler with
 * the deciding line, robots.txt missing or unreachable, llms.txt added,
 * broken and removed between checks (the history says what changed), roles,
 * the nightly schedule, bad input, and the rate limit.
 */

let app: TestApp;
let site: FixtureSite;
let ws: Org;
let siteId: number;

const ROBOTS = [
  '# Fixture robots.txt', // 1
  'User-agent: GPTBot', // 2
  'Disallow: /', // 3
  '', // 4
  'User-agent: ClaudeBot', // 5
  'User-agent: PerplexityBot', // 6
  'Disallow: /private/', // 7
  'Allow: /private/press', // 8
  '', // 9
  'User-agent: CCBot', // 10
  'Disallow: /', // 11
  'Allow: /blog/', // 12
  '', // 13
  'User-agent: Google-Extended', // 14
  'Allow: /', // 15
  '', // 16
  'User-agent: *', // 17
  'Disallow:', // 18
  '',
].join('\n');

const LLMS =
  '# Fixture Shop\n\n> Shoes and more.\n\n## Docs\n- [Sizes](https://www.fixture-shop.com/sizes): size guide\n';

const report = (key = ws.keys.viewer) => app.request('GET', `/projects/${siteId}/crawlers`, { key });
const checkNow = (key = ws.keys.member) => app.request('POST', `/projects/${siteId}/crawlers/check`, { key });
interface Item {
  agent: string;
  access: string;
  reason: string | null;
}
const agent = (body: { crawlers: Item[] }, name: string) => body.crawlers.find((c) => c.agent === name);

beforeAll(async () => {
  site = await startFixtureSite({ routes: { '/robots.txt': ROBOTS } });
  app = await startTestApp({
    workers: true,
    env: { SITE_FETCH_MAP: `fixture-shop.com=${site.url}`, SITE_FETCH_TIMEOUT_MS: '1500', SITE_JOB_WAIT_MS: '10000' },
  });
  ws = await seedOrg(app.ctx);
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Fixture Shop', url: 'https://www.fixture-shop.com/' },
  });
  siteId = res.body.project.id;
});
afterAll(async () => {
  await app.close();
  await site.close();
});
// The tests below check more than 10 times an hour; the rate limit has its own test at the end.
beforeEach(() => app.ctx.redis.del(`${app.config.redisPrefix}:rl:crawlerCheck:${siteId}`));

describe('crawler check', () => {
  it('runs when a site is made: access per crawler with the deciding line', async () => {
    const res = await waitFor(
      report,
      (r) => r.body.check?.state === 'done' || r.body.check?.state === 'failed',
      15_000,
    );
    expect(res.status).toBe(200);
    expect(res.body.check).toMatchObject({ state: 'done', trigger: 'create', error: null });
    expect(res.body.robots).toMatchObject({
      url: 'https://www.fixture-shop.com/robots.txt',
      state: 'found',
      status: 200,
      note: null,
    });
    expect(res.body.crawlers.map((c: { agent: string }) => c.agent)).toEqual(AI_CRAWLERS.map((c) => c.agent));
    expect(agent(res.body, 'GPTBot')).toEqual({
      agent: 'GPTBot',
      company: 'OpenAI',
      kind: 'training',
      purpose: expect.any(String),
      access: 'blocked',
      decidingLine: { line: 3, text: 'Disallow: /' },
      group: 'gptbot',
      reason: null,
    });
    expect(agent(res.body, 'ClaudeBot')).toMatchObject({
      company: 'Anthropic',
      access: 'partial',
      decidingLine: { line: 7, text: 'Disallow: /private/' },
    });
    expect(agent(res.body, 'PerplexityBot')).toMatchObject({ access: 'partial', decidingLine: { line: 7 } });
    expect(agent(res.body, 'CCBot')).toMatchObject({
      access: 'partial',
      decidingLine: { line: 11, text: 'Disallow: /' },
    });
    expect(agent(res.body, 'Google-Extended')).toMatchObject({
      access: 'allowed',
      decidingLine: { line: 15, text: 'Allow: /' },
    });
    expect(agent(res.body, 'OAI-SearchBot')).toMatchObject({
      access: 'allowed',
      decidingLine: null,
      group: '*',
      reason: 'its group ("*") disallows nothing',
    });
    expect(res.body.llmsTxt).toMatchObject({ state: 'missing', status: 404, checkedAt: res.body.checkedAt });
    expect(res.body.history).toHaveLength(1);
    expect(site.requests.find((r) => r.path === '/robots.txt')?.userAgent).toMatch(/^SightlineBot\//);
  });

  it('follows llms.txt added, made invalid and removed between checks, in the history', async () => {
    site.set('/llms.txt', LLMS);
    const present = await checkNow();
    expect(present.status).toBe(200);
    expect(present.body.check).toMatchObject({ state: 'done', trigger: 'manual' });
    expect(present.body.llmsTxt).toMatchObject({ state: 'present', title: 'Fixture Shop', links: 1, note: null });
    site.set('/llms.txt', { body: '<!doctype html><title>Not found</title>', type: 'text/html' });
    expect((await checkNow()).body.llmsTxt).toMatchObject({
      state: 'invalid',
      note: expect.stringMatching(/HTML page/),
    });
    site.set('/llms.txt', 'Welcome to our shop\n');
    expect((await checkNow()).body.llmsTxt).toMatchObject({ state: 'invalid', note: expect.stringMatching(/# Name/) });
    site.remove('/llms.txt');
    const gone = await checkNow();
    expect(gone.body.llmsTxt.state).toBe('missing');
    expect(gone.body.history.map((h: { llmsTxt: string }) => h.llmsTxt)).toEqual([
      'missing',
      'invalid',
      'invalid',
      'present',
      'missing',
    ]);
    expect(gone.body.history[0].llmsTxtChange).toEqual({ from: 'invalid', to: 'missing' });
    expect(gone.body.history[3].llmsTxtChange).toEqual({ from: 'missing', to: 'present' });
    expect(gone.body.history[0]).toMatchObject({
      robots: 'found',
      blocked: 1,
      partial: 3,
      allowed: AI_CRAWLERS.length - 4,
      changes: [],
    });
  });

  it('says what changed for each crawler', async () => {
    site.set('/robots.txt', 'User-agent: *\nDisallow: /\n');
    const res = await checkNow();
    expect(res.body.crawlers.every((c: { access: string }) => c.access === 'blocked')).toBe(true);
    expect(res.body.history[0].changes).toEqual(
      expect.arrayContaining([
        { agent: 'ClaudeBot', from: 'partial', to: 'blocked' },
        { agent: 'Googlebot', from: 'allowed', to: 'blocked' },
      ]),
    );
    expect(res.body.history[0].changes.find((c: { agent: string }) => c.agent === 'GPTBot')).toBeUndefined();
    site.set('/robots.txt', ROBOTS);
  });

  it('reads a missing robots.txt as "everything allowed" and an unreachable one as unreachable', async () => {
    site.remove('/robots.txt');
    const missing = await checkNow();
    expect(missing.body.robots).toMatchObject({ state: 'missing', status: 404 });
    expect(
      missing.body.crawlers.every(
        (c: { access: string; decidingLine: unknown }) => c.access === 'allowed' && c.decidingLine === null,
      ),
    ).toBe(true);
    expect(agent(missing.body, 'GPTBot')?.reason).toMatch(/no robots.txt rules/);

    site.set('/robots.txt', { status: 503, body: 'down' });
    const down = await checkNow();
    expect(down.body.robots).toMatchObject({
      state: 'unreachable',
      status: 503,
      note: expect.stringMatching(/answered 503.*RFC 9309/),
    });
    expect(down.body.crawlers.every((c: { access: string }) => c.access === 'blocked')).toBe(true);
    expect(agent(down.body, 'GPTBot')?.reason).toMatch(/unreachable/);

    site.set('/robots.txt', {
      handle: (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const drip = setInterval(() => res.write('#'), 100);
        res.on('close', () => clearInterval(drip));
      },
    });
    const slow = await checkNow();
    expect(slow.body.robots).toMatchObject({
      state: 'unreachable',
      note: expect.stringMatching(/did not answer in full within 1\.5 s/),
    });
    site.set('/robots.txt', ROBOTS);
  });

  it('reads the first 500 KiB of a 1 MB robots.txt of junk, and says so', async () => {
    const junk = Array.from({ length: 30_000 }, (_, i) => `%%% junk ${i} ${'z'.repeat(i % 30)}`).join('\n');
    site.set('/robots.txt', `User-agent: GPTBot\nDisallow: /\n${junk}`.padEnd(1 << 20, 'q'));
    const res = await checkNow();
    expect(res.body.check.state).toBe('done');
    expect(res.body.robots).toMatchObject({
      state: 'found',
      bytes: expect.any(Number),
      note: expect.stringMatching(/larger than 500 KiB.*lines are not robots.txt rules/),
    });
    expect(res.body.robots.bytes).toBeLessThanOrEqual(500 * 1024);
    expect(agent(res.body, 'GPTBot')).toMatchObject({ access: 'blocked', decidingLine: { line: 2 } });
    expect(agent(res.body, 'ClaudeBot')?.access).toBe('allowed');
    site.set('/robots.txt', ROBOTS);
  });

  it('fails the check on a redirect to 127.0.0.1, keeping the last results', async () => {
    site.set('/robots.txt', { status: 302, headers: { location: 'https://127.0.0.1/robots.txt' } });
    const res = await checkNow();
    expect(res.body.check).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/127\.0\.0\.1, a loopback address; not fetched/),
    });
    // What is shown is the last finished check.
    expect(res.body.robots.state).toBe('found');
    expect(res.body.crawlers).toHaveLength(AI_CRAWLERS.length);
    site.set('/robots.txt', ROBOTS);
  });
});

describe('files their thread cannot read within the deadline', () => {
  /** Runs a check in this process with `reader`, as the job would. */
  async function checkWith(reader: SiteFileReader) {
    const { check } = await requestCrawlerCheck(app.ctx, { id: siteId }, null, 'manual', { queue: false });
    return runCrawlerCheck(app.ctx, siteId, check.id, { reader });
  }

  it('fails the check on a robots.txt, keeping the last results, and marks a llms.txt invalid', async () => {
    // 500 KiB of rules: reading them takes far longer than the few ms allowed here (SITE_PARSE_TIMEOUT_MS is 20 s by default).
    site.set('/robots.txt', `User-agent: *\n${'Disallow: /*a*b*c\n'.repeat(27_000)}`);
    const pool = app.ctx.siteFilePool();
    const fast = createSiteFileReader({ deadlineMs: 10, pool });
    try {
      expect(await checkWith({ ...siteFileReaderFor(app.config, pool), robots: fast.robots })).toEqual({
        state: 'failed',
        error: 'robots.txt took too long to read (over 10 ms); it was not used',
      });
      const failed = await report();
      expect(failed.body.check).toMatchObject({
        state: 'failed',
        error: 'robots.txt took too long to read (over 10 ms); it was not used',
      });
      expect(failed.body.robots.state).toBe('found');

      site.set('/robots.txt', ROBOTS);
      site.set('/llms.txt', `# Fixture Shop\n${'- [Page](https://www.fixture-shop.com/p)\n'.repeat(20_000)}`);
      expect(
        await checkWith({
          ...siteFileReaderFor(app.config, pool),
          llmsTxt: createSiteFileReader({ deadlineMs: 1, pool }).llmsTxt,
        }),
      ).toEqual({ state: 'done' });
      expect((await report()).body.llmsTxt).toMatchObject({
        state: 'invalid',
        status: 200,
        note: 'llms.txt took too long to read (over 1 ms); it was not used',
      });
    } finally {
      site.set('/robots.txt', ROBOTS);
      site.remove('/llms.txt');
    }
  });
});

describe('roles', () => {
  it('lets viewers read and members check', async () => {
    expect((await report(ws.keys.viewer)).status).toBe(200);
    expect((await checkNow(ws.keys.viewer)).status).toBe(403);
    expect((await checkNow(ws.keys.member)).status).toBe(200);
    expect((await checkNow(ws.keys.admin)).status).toBe(200);
  });
});

describe('nightly checks', () => {
  it('are a job scheduler of the worker and check every site into its history', async () => {
    const schedulers = await waitFor(
      () => app.ctx.jobs.queue('schedule').getJobSchedulers(),
      (list) => list.some((s) => s.key === 'crawler-check-tick') && list.some((s) => s.key === 'sitemap-import-tick'),
      5000,
    );
    expect(schedulers.map((s) => s.key)).toEqual(expect.arrayContaining(['crawler-check-tick', 'sitemap-import-tick']));
    const before = (await report()).body.history.length;
    const { queued } = await runCrawlerCheckTick(app.ctx);
    expect(queued).toBeGreaterThanOrEqual(1);
    const after = await waitFor(
      report,
      (r) => r.body.check?.trigger === 'schedule' && r.body.check.state === 'done',
      10_000,
    );
    expect(after.body.history.length).toBe(before + 1);
    expect(after.body.history[0].trigger).toBe('schedule');
  });
});

describe('rate limit', () => {
  it('allows 10 checks an hour per site, also calls joining a queued check, then 429 with Retry-After; nightly checks still run', async () => {
    const other = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Limit Shop', url: 'limit-shop.com' },
    });
    const otherId: number = other.body.project.id;
    await waitFor(
      () => app.ctx.db.selectFrom('crawlerChecks').select('status').where('siteId', '=', otherId).execute(),
      (rows) => rows.length > 0 && rows.every((r) => r.status === 'done' || r.status === 'failed'),
      15_000,
    );
    // A check queued with no job: every call below joins it rather than queueing its own.
    const { check: queued } = await requestCrawlerCheck(app.ctx, { id: otherId }, null, 'manual', { queue: false });
    const finish = setTimeout(
      () =>
        void app.ctx.db
          .updateTable('crawlerChecks')
          .set({ status: 'failed', error: 'test', finishedAt: new Date() })
          .where('id', '=', queued.id)
          .execute(),
      3000,
    );
    try {
      const joined = await Promise.all(
        Array.from({ length: 10 }, () =>
          app.request('POST', `/projects/${otherId}/crawlers/check`, { key: ws.keys.member }),
        ),
      );
      expect(joined.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(joined.map((r) => r.body.check.id)).toEqual(Array(10).fill(queued.id));
    } finally {
      clearTimeout(finish);
    }
    const refused = await app.request('POST', `/projects/${otherId}/crawlers/check`, { key: ws.keys.admin });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(refused.body).toEqual({
      error: expect.stringMatching(/at most 10 crawler checks per site an hour/),
      fields: null,
    });
    // Another site has its own count.
    expect((await checkNow()).status).toBe(200);
    // The nightly checks are not API calls: the site still gets one.
    await app.ctx.db
      .updateTable('crawlerChecks')
      .set({ status: 'failed', finishedAt: new Date() })
      .where('id', '=', queued.id)
      .where('status', '=', 'queued')
      .execute();
    await runCrawlerCheckTick(app.ctx);
    const nightly = await app.ctx.db
      .selectFrom('crawlerChecks')
      .select(['trigger'])
      .where('siteId', '=', otherId)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    expect(nightly.trigger).toBe('schedule');
  });
});
