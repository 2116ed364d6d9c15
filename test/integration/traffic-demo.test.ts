import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/clock.ts';
import { ensureDemoSiteReads, seedDemo, type DemoSeed } from '../../src/cli/demo.ts';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { demoSiteRoutes } from '../../src/fixture-site/demo-site.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The demo (`npm start`): its site serves an access log of the last two
 * weeks, the demo project pulls it like a log drain, and the newcomer's
 * first crawler traffic report has AI crawlers, their pages and the visits
 * assistants sent in it.
 */

const NOW = '2026-11-26T12:00:00Z';
let app: TestApp;
let site: FixtureSite;
let seed: DemoSeed;
let dir: string;

beforeAll(async () => {
  site = await startFixtureSite({ routes: demoSiteRoutes(Date.parse(NOW)) });
  app = await startTestApp({
    clock: fixedClock(NOW),
    workers: true,
    env: { SITE_FETCH_MAP: `brightdesk.com=${site.url}` },
  });
  dir = mkdtempSync(path.join(tmpdir(), 'sightline-demo-'));
  seed = await seedDemo(app.ctx, dir);
});
afterAll(async () => {
  await app.close();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo’s crawler traffic', { timeout: 60_000 }, () => {
  it('pulls the demo site’s access log once, and the first report shows crawlers and referrals', async () => {
    await ensureDemoSiteReads(app.ctx, seed);
    await ensureDemoSiteReads(app.ctx, seed);
    const list = await waitFor(
      () => app.request('GET', `/projects/${seed.siteId}/crawler-logs`, { key: seed.key }),
      (r) => r.body.imports.every((i: { state: string }) => i.state === 'done' || i.state === 'failed'),
      45_000,
      200,
    );
    expect(list.body.imports).toHaveLength(1);
    expect(list.body.imports[0]).toMatchObject({
      state: 'done',
      source: 'pull',
      url: 'https://www.brightdesk.com/logs/access.log.gz',
      lines: 30_000,
      skipped: 0,
    });
    expect(list.body.imports[0].agentHits).toBeGreaterThan(5000);
    const res = await app.request('GET', `/projects/${seed.siteId}/crawler-traffic`, { key: seed.key });
    expect(res.status).toBe(200);
    // The latest week with traffic, as a report opens.
    expect(res.body).toMatchObject({ period: 'week', start: '2026-11-23' });
    const agents = res.body.agents.map((a: { agent: string }) => a.agent);
    expect(agents).toEqual(
      expect.arrayContaining(['Googlebot', 'GPTBot', 'ClaudeBot', 'PerplexityBot', 'ChatGPT-User']),
    );
    expect(res.body.agents[0].topPages[0].path).toBe('/');
    expect(res.body.referrals.visits).toBeGreaterThan(0);
    expect(res.body.referrals.assistants.map((a: { assistant: string }) => a.assistant)).toContain('ChatGPT');
    expect(res.body.statusPages.length).toBeGreaterThan(0);
  });
});
