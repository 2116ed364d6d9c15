import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../jobs/index.ts';
import { queueNamesOf } from '../../src/queue/job-row.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The queue dashboard in a real browser (Debian's Chromium, headless, as the
 * share page's test): behind the operator token (HTTP Basic, as a browser
 * asks for it), the page loads, lists every queue and shows a failed job
 * with its reason, and its CSP blocks nothing of its own. Keeps a
 * screenshot in test-artifacts/. Every wait is for a selector, never a delay.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const TOKEN = 'operator-token-for-the-browser-0123456789';

let app: TestApp;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
const cspViolations: string[] = [];
const offsite: string[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: run bash scripts/browser.sh (npm test does), or set CHROMIUM_PATH`);
  app = await startTestApp({ env: { OPERATOR_TOKEN: TOKEN }, workers: { queues: ['rewrite'] } });
  // A job whose payload its schema refuses: the worker fails it on its only attempt.
  await app.ctx.jobs.queue('rewrite').add('rewrite', { siteId: -1 }, { jobId: 'browser-failed', attempts: 1 });
  for (
    const deadline = Date.now() + 15_000;
    (await (await app.ctx.jobs.queue('rewrite').getJob('browser-failed'))?.getState()) !== 'failed';
  ) {
    if (Date.now() > deadline) throw new Error('the job never failed');
    await new Promise((r) => setTimeout(r, 100));
  }

  userDataDir = mkdtempSync(join(tmpdir(), 'sightline-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 900 },
    httpCredentials: { username: 'operator', password: TOKEN },
  });
  // Nothing leaves the machine: a request elsewhere than the API is noted and refused.
  await context.route(
    (url) => !url.href.startsWith(app.url),
    (route) => {
      offsite.push(route.request().url());
      return route.abort();
    },
  );
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await app?.close();
});

describe('the queue dashboard in Chromium', () => {
  it('opens behind the operator token and lists every queue', async () => {
    const response = await page.goto(`${app.url}/admin/queues`);
    expect(response?.status()).toBe(200);
    expect(page.url()).toBe(`${app.url}/admin/queues/`);
    for (const name of queueNamesOf(JOBS)) await page.getByText(name, { exact: true }).first().waitFor();
    expect(await page.title()).toBe('Sightline queues');
    expect(cspViolations).toEqual([]);
    expect(offsite).toEqual([]);
  });

  it('shows a failed job with its reason, and keeps a screenshot', async () => {
    await page.goto(`${app.url}/admin/queues/queue/rewrite?status=failed`);
    await page.getByText('browser-failed').first().waitFor();
    await page
      .getByText(/siteId/)
      .first()
      .waitFor();
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'queue-dashboard.png'), fullPage: true });
    expect(existsSync(join(ARTIFACTS, 'queue-dashboard.png'))).toBe(true);
    expect(cspViolations).toEqual([]);
  });

  it('is refused without the token', async () => {
    const bare = await fetch(`${app.url}/admin/queues/`);
    expect(bare.status).toBe(401);
  });
});
