import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setOrgBranding } from '../../src/domain/orgs/orgs.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, seedOrg } from '../helpers/fixtures.ts';

/**
 * The shared report page in a real browser: Debian's Chromium, headless,
 * driven by playwright-core (scripts/browser.sh installs it; npm test runs
 * that). Checks that the charts are drawn, that the period switcher works and
 * that the page's CSP blocks nothing of its own, and keeps a screenshot in
 * test-artifacts/. Every wait is for a selector or a URL, never a delay.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const WEEKS = [
  '2026-09-07',
  '2026-09-14',
  '2026-09-21',
  '2026-09-28',
  '2026-10-05',
  '2026-10-12',
  '2026-10-19',
  '2026-10-26',
  '2026-11-02',
  '2026-11-09',
];
const PROMPTS = [
  'What is the best CRM for a small sales team?',
  'Which CRM integrates best with Gmail?',
  'Cheapest CRM with a mobile app?',
  'Best CRM for startups in 2026?',
  'Which CRM has the best reporting?',
  'What CRM do agencies use?',
];
const PROVIDERS = ['openai', 'anthropic', 'perplexity', 'gemini'] as const;
const SOURCES = [
  'https://www.g2.com/categories/crm',
  'https://www.reddit.com/r/sales/comments/crm',
  'https://en.wikipedia.org/wiki/Customer_relationship_management',
  'https://acme.com/pricing',
  'https://globex.com/features',
  'https://techcrunch.com/2026/crm-roundup',
  'https://www.youtube.com/watch?v=crm101',
];

let app: TestApp;
let context: BrowserContext;
let page: Page;
let userDataDir: string;
let shareUrl: string;
const cspViolations: string[] = [];

/** Ten weeks of answers in which Acme is named more and more often, so the charts have a shape. */
async function seedTenWeeks(orgId: number, siteId: number) {
  for (const [w, week] of WEEKS.entries()) {
    const day = `${week.slice(0, 8)}${String(Number(week.slice(8)) + 1).padStart(2, '0')}T09:00:00Z`;
    await seedAnswers(
      app.ctx,
      orgId,
      siteId,
      PROMPTS.flatMap((prompt, p) =>
        PROVIDERS.map((provider, j) => {
          const h = (w * 7 + p * 3 + j * 5) % 10;
          const names = [
            h < 3 + Math.floor(w / 2) ? 'Acme' : null,
            (h + p) % 3 !== 0 ? 'Globex' : null,
            (h + j) % 4 === 0 ? 'Initech' : null,
          ].filter((n): n is string => n !== null);
          if (h % 2 === 1) names.reverse();
          const text = names.length
            ? `Good options: ${names.map((n, i) => `${i + 1}. ${n}`).join(' ')}.`
            : 'It depends on your team.';
          const citations = [SOURCES[(w + p + j) % SOURCES.length], SOURCES[(p * 2 + j) % SOURCES.length]].map(
            (url) => ({ url: url as string, title: 'Source' }),
          );
          return { prompt, provider, askedAt: day, text, citations };
        }),
      ),
    );
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: run bash scripts/browser.sh (npm test does), or set CHROMIUM_PATH`);
  app = await startTestApp();
  const ws = await seedOrg(app.ctx, { name: 'Acme Inc' });
  await setOrgBranding(app.ctx, ws.orgId, { reportName: 'Northwind Growth Partners' });
  const site = await addAcmeSite(app, ws);
  await seedTenWeeks(ws.orgId, site.id);
  const share = await app.request('POST', `/projects/${site.id}/shares`, {
    key: ws.keys.admin,
    body: { label: 'browser test' },
  });
  shareUrl = `${app.url}/share/${(share.body.url as string).split('/share/')[1]}`;

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
    viewport: { width: 1200, height: 900 },
  });
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

describe('the shared page in Chromium', () => {
  it('draws the charts, the ranking and the tables, and keeps a screenshot', async () => {
    const response = await page.goto(shareUrl);
    expect(response?.status()).toBe(200);
    await page.waitForSelector('svg[data-chart="visibility"] path.line');
    await page.waitForSelector('svg[data-chart="shareOfVoice"] path.line');
    expect(await page.title()).toContain('Acme');
    expect(await page.locator('h1').textContent()).toBe('Northwind Growth Partners');
    for (const chart of ['visibility', 'shareOfVoice']) {
      const box = await page.locator(`svg[data-chart="${chart}"] path.line`).boundingBox();
      expect(box?.width, chart).toBeGreaterThan(300);
      expect(box?.height, chart).toBeGreaterThan(5);
      expect(await page.locator(`svg[data-chart="${chart}"] circle.point`).count(), chart).toBe(WEEKS.length);
    }
    expect(await page.locator('section[data-section="ranking"] tbody tr').count()).toBe(3);
    expect(await page.locator('section[data-section="assistants"] tbody tr').count()).toBe(PROVIDERS.length);
    expect(await page.locator('section[data-section="sources"] tbody tr').count()).toBeGreaterThan(3);
    // The stylesheet applied: the CSP's hash matches it, and nothing was blocked.
    expect(
      await page.locator('nav.switcher').evaluate((el) => el.ownerDocument.defaultView?.getComputedStyle(el).display),
    ).toBe('flex');
    expect(cspViolations).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'share-page.png'), fullPage: true });
    expect(existsSync(join(ARTIFACTS, 'share-page.png'))).toBe(true);
  });

  it('switches period with the tabs, the previous link and the period list', async () => {
    await page.goto(shareUrl);
    await page.waitForSelector('main[data-period="week"][data-start="2026-11-09"]');

    await page.click('nav.switcher a[data-period="month"]');
    await page.waitForSelector('main[data-period="month"][data-start="2026-11-01"]');
    expect(await page.locator('nav.switcher a[aria-current="page"]').textContent()).toBe('Month');
    expect(await page.locator('#period-label').textContent()).toBe('November 2026');
    await page.waitForSelector('svg[data-chart="visibility"] circle.point');
    expect(await page.locator('svg[data-chart="visibility"] circle.point').count()).toBe(3);

    await page.click('nav.switcher a[rel="prev"]');
    await page.waitForSelector('main[data-period="month"][data-start="2026-10-01"]');
    expect(page.url()).toContain('start=2026-10-01');

    await page.selectOption('select[name="start"]', '2026-09-01');
    await page.click('nav.switcher button[type="submit"]');
    await page.waitForSelector('main[data-period="month"][data-start="2026-09-01"]');
    expect(await page.locator('#period-label').textContent()).toBe('September 2026');
    expect(await page.locator('nav.switcher span.off').first().textContent()).toContain('Previous');

    await page.click('nav.switcher a[data-period="quarter"]');
    await page.waitForSelector('main[data-period="quarter"][data-start="2026-10-01"]');
    expect(cspViolations).toEqual([]);
  });

  it('shows a 404 page for a link that opens nothing', async () => {
    const response = await page.goto(`${app.url}/share/${'x'.repeat(43)}`);
    expect(response?.status()).toBe(404);
    await page.waitForSelector('text=This report link does not work');
  });
});
