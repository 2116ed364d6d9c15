import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSiteRoutes } from '../../src/fixture-site/demo-site.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { createSite } from '../../src/domain/onboarding/new-site.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg } from '../helpers/fixtures.ts';

/**
 * `sightline pages import` and `sightline crawlers check` as separate
 * processes, against the demo brand's fixture site: they run in the CLI's
 * own process (no worker here), draw a progress line on stderr and print JSON.
 */

const run = promisify(execFile);
const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
let app: TestApp;
let site: FixtureSite;
let siteId: number;

async function sightline(args: string[]) {
  try {
    const { stdout, stderr } = await run(NODE, [CLI, ...args], { env: { ...process.env, ...app.env } });
    return { code: 0, json: JSON.parse(stdout) as Record<string, any>, stderr }; // eslint-disable-line @typescript-eslint/no-explicit-any -- printed JSON, asserted on by shape
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, json: e.stdout ? (JSON.parse(e.stdout) as Record<string, any>) : null, stderr: e.stderr }; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  }
}

beforeAll(async () => {
  site = await startFixtureSite({ routes: demoSiteRoutes() });
  app = await startTestApp({ env: { SITE_FETCH_MAP: `brightdesk.com=${site.url}` } });
  const ws = await seedOrg(app.ctx);
  siteId = (
    await createSite(
      app.ctx,
      { orgId: ws.orgId, userId: ws.ownerId },
      { name: 'Brightdesk', url: 'https://www.brightdesk.com/' },
    )
  ).id;
});
afterAll(async () => {
  await app.close();
  await site.close();
});

describe('site intelligence from the CLI', { timeout: 60_000 }, () => {
  it('imports the sitemap with a progress line, taking over the import queued at creation', async () => {
    const res = await sightline(['pages', 'import', '--project', String(siteId)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json?.import).toMatchObject({
      state: 'done',
      trigger: 'create',
      foundVia: 'robots',
      sitemaps: 3,
      urls: 17,
      added: 17,
      titles: { read: 17, failed: 0 },
    });
    expect(res.stderr).toMatch(/sitemaps \d+ {2}pages [\d,]+ {2}/);
    const again = await sightline(['pages', 'import', '--project', String(siteId)]);
    expect(again.json?.import).toMatchObject({ state: 'done', trigger: 'cli', added: 0, kept: 17 });
  });

  it('checks crawlers and prints the report', async () => {
    const res = await sightline(['crawlers', 'check', '--project', String(siteId)]);
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toMatchObject({ robots: { state: 'found' }, llmsTxt: { state: 'present', title: 'Brightdesk' } });
    const gpt = (res.json?.crawlers as { agent: string; access: string }[]).find((c) => c.agent === 'GPTBot');
    expect(gpt).toMatchObject({ access: 'blocked', decidingLine: { line: 10, text: 'Disallow: /' } });
    expect(res.stderr).toMatch(/robots\.txt found: \d+ allowed, \d+ partial, 3 blocked; llms\.txt present/);
  });

  it('exits 1 with the reason when the import fails', async () => {
    site.set('/sitemaps/pages.xml', 'not xml at all');
    try {
      const res = await sightline(['pages', 'import', '--project', String(siteId)]);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/the import failed: .*pages\.xml is not a sitemap/);
      expect(res.json?.import).toMatchObject({ state: 'failed' });
    } finally {
      site.set('/sitemaps/pages.xml', demoSiteRoutes()['/sitemaps/pages.xml'] as string);
    }
  });
});
