import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../src/domain/common/wait-for.ts';
import { importAnswers, parseAnswerLines } from '../../src/domain/scans/answer-import.ts';
import { requestSitemapImport } from '../../src/domain/pages/imports.ts';
import { runSitemapImport } from '../../src/domain/pages/sitemap-import.ts';
import { createSiteFileReader, siteFileReaderFor } from '../../src/web/site-file-pool.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * Sitemap import and the pages endpoints against a local fixture site
 * reached through SITE_FETCH_MAP: robots.txt Sitemap lines, a nested index,
 * a gzipped sitemap, titles; what a current answer links to; the rate limit,
 * roles, and each kind of bad input ending the import with its reason and
 * the pages as they were.
 */

let app: TestApp;
let site: FixtureSite;
let ws: Org;
let siteId: number;
const ORIGIN = 'https://www.fixture-shop.com';

const urlset = (paths: string[], extra = '') =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${paths
    .map(
      (p) =>
        `<url><loc>${p.startsWith('http') ? p : `${ORIGIN}${p}`}</loc><lastmod>2026-10-01</lastmod><image:image><image:loc>${ORIGIN}/img${p}.png</image:loc></image:image></url>`,
    )
    .join('')}${extra}</urlset>`;
const index = (paths: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<sitemap><loc>${ORIGIN}${p}</loc></sitemap>`).join('')}</sitemapindex>`;
const html = (title: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>  ${title} </title></head><body><p>Hello</p></body></html>`;
const ROBOTS = `User-agent: *\nDisallow: /cart/\n\nSitemap: ${ORIGIN}/sitemap_index.xml\nSitemap: ${ORIGIN}/blog/sitemap.xml.gz\n`;

function serveGoodSite() {
  site.set('/robots.txt', ROBOTS);
  site.set('/sitemap_index.xml', index(['/sitemaps/products.xml', '/sitemaps/nested-index.xml']));
  site.set('/sitemaps/nested-index.xml', index(['/sitemaps/docs.xml']));
  site.set(
    '/sitemaps/products.xml',
    urlset([
      '/products/a',
      '/products/b',
      '/cart/checkout',
      'https://elsewhere.com/x',
      'http://shop.fixture-shop.com/products/c',
    ]),
  );
  site.set('/sitemaps/docs.xml', urlset(['/docs/start', '/docs/api']));
  site.set('/blog/sitemap.xml.gz', { body: gzipSync(urlset(['/blog/hello', '/'])), type: 'application/gzip' });
  site.set('/products/a', html('Product A &amp; friends'));
  site.set('/products/b', html('Product B'));
  site.set('/products/c', html('Product C'));
  site.set('/docs/start', html('Getting started'));
  site.set('/docs/api', '<html><head><meta property="og:title" content="API reference"></head><body></body></html>');
  site.set('/', html('Fixture Shop'));
  site.set('/cart/checkout', html('Checkout'));
}

/** Queues an import through the worker and waits for it to end. */
async function importThroughWorker(id = siteId) {
  const { import: row } = await requestSitemapImport(app.ctx, { id }, null, 'manual');
  return waitFor(
    () => app.ctx.db.selectFrom('sitemapImports').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow(),
    (r) => r.status === 'done' || r.status === 'failed',
    20_000,
  );
}

const pages = (query = '', key = ws.keys.viewer) => app.request('GET', `/projects/${siteId}/pages${query}`, { key });

beforeAll(async () => {
  site = await startFixtureSite();
  serveGoodSite();
  // The fetch deadline covers parsing as the body streams: a 50,001-URL file takes 0.8 s alone and over 1.5 s under a loaded CI.
  app = await startTestApp({
    workers: true,
    // The map names each host it sends to the fixture (a domain also covers its www. form, no other subdomain).
    env: {
      SITE_FETCH_MAP: `fixture-shop.com=${site.url},shop.fixture-shop.com=${site.url},other-shop.com=${site.url}`,
      SITE_FETCH_TIMEOUT_MS: '6000',
      SITE_JOB_WAIT_MS: '10000',
    },
  });
  ws = await seedOrg(app.ctx);
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name: 'Fixture Shop', url: `${ORIGIN}/` },
  });
  siteId = res.body.project.id;
});
afterAll(async () => {
  await app.close();
  await site.close();
});

describe('sitemap import', () => {
  it('runs when a site is made: robots Sitemap lines, a nested index, gzip, own domain only, titles', async () => {
    const first = await waitFor(
      () => app.ctx.db.selectFrom('sitemapImports').selectAll().where('siteId', '=', siteId).executeTakeFirst(),
      (r) => r?.status === 'done' || r?.status === 'failed',
      20_000,
    );
    expect(first).toMatchObject({
      status: 'done',
      trigger: 'create',
      foundVia: 'robots',
      sitemaps: 5,
      urls: 8,
      added: 8,
      kept: 0,
      skipped: 1,
    });
    const res = await pages();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 8, page: 1, perPage: 50, import: { state: 'done', urls: 8, added: 8 } });
    const byPath = Object.fromEntries(res.body.pages.map((p: { path: string; url: string }) => [p.url, p]));
    expect(Object.keys(byPath).sort()).toEqual(
      [
        `${ORIGIN}/`,
        `${ORIGIN}/blog/hello`,
        `${ORIGIN}/cart/checkout`,
        `${ORIGIN}/docs/api`,
        `${ORIGIN}/docs/start`,
        `${ORIGIN}/products/a`,
        `${ORIGIN}/products/b`,
        'http://shop.fixture-shop.com/products/c',
      ].sort(),
    );
    expect(byPath[`${ORIGIN}/products/a`]).toMatchObject({
      section: 'products',
      title: 'Product A & friends',
      shown: false,
      answers: 0,
      lastmod: '2026-10-01T00:00:00.000Z',
    });
    expect(byPath[`${ORIGIN}/docs/api`].title).toBe('API reference');
    expect(byPath['http://shop.fixture-shop.com/products/c'].title).toBe('Product C');
    // Not read: robots.txt keeps every crawler (ours included) out of /cart/, and /blog/hello answers 404.
    expect(byPath[`${ORIGIN}/cart/checkout`].title).toBeNull();
    expect(byPath[`${ORIGIN}/blog/hello`].title).toBeNull();
    expect(site.requests.some((r) => r.path === '/cart/checkout')).toBe(false);
    expect(site.requests.find((r) => r.path === '/products/a')?.userAgent).toMatch(/^SightlineBot\//);
    expect(res.body.sections).toEqual(
      expect.arrayContaining([
        { section: 'products', pages: 3 },
        { section: '/', pages: 1 },
      ]),
    );
  });

  it('filters by q, section and shown, in pages of 5 to 200', async () => {
    expect((await pages('?q=product')).body.total).toBe(3);
    expect((await pages('?q=getting')).body.pages.map((p: { path: string }) => p.path)).toEqual(['/docs/start']);
    expect((await pages('?section=docs')).body.total).toBe(2);
    expect((await pages('?section=/')).body.pages.map((p: { path: string }) => p.path)).toEqual(['/']);
    expect((await pages('?q=%25')).body.total).toBe(0);
    const second = await pages('?perPage=5&page=2');
    expect(second.body).toMatchObject({ total: 8, page: 2, perPage: 5 });
    expect(second.body.pages).toHaveLength(3);
    for (const bad of ['?perPage=4', '?perPage=201', '?perPage=x', '?page=0', '?shown=maybe']) {
      const res = await pages(bad);
      expect(res.status, bad).toBe(422);
      expect(res.body.fields).toBeTruthy();
    }
  });

  it('marks a page shown when a current answer links to it, and lists those prompts', async () => {
    const lines = [
      {
        prompt: 'Which shop sells product A?',
        provider: 'openai',
        askedAt: '2026-11-01T10:00:00Z',
        text: 'Fixture Shop has it.',
        citations: [{ url: `${ORIGIN}/products/a?utm_source=chatgpt`, title: 'A' }],
      },
      {
        prompt: 'Which shop sells product A?',
        provider: 'perplexity',
        askedAt: '2026-11-01T10:00:00Z',
        text: 'See fixture-shop.com.',
        citations: [{ url: 'https://fixture-shop.com/products/a/' }],
      },
      {
        prompt: 'Where are the API docs?',
        provider: 'openai',
        askedAt: '2026-11-01T10:00:00Z',
        text: 'Elsewhere.',
        citations: [{ url: 'https://elsewhere.com/docs' }],
      },
    ];
    const siteRow = await app.ctx.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirstOrThrow();
    await importAnswers(
      app.ctx,
      siteRow.orgId,
      siteId,
      parseAnswerLines(lines.map((l) => JSON.stringify(l)).join('\n')),
    );
    const shown = await pages('?shown=yes');
    expect(shown.body.pages).toEqual([expect.objectContaining({ path: '/products/a', shown: true, answers: 2 })]);
    expect((await pages('?shown=no')).body.total).toBe(7);
    const pageId = shown.body.pages[0].id;
    const prompts = await app.request('GET', `/projects/${siteId}/pages/${pageId}/prompts`, { key: ws.keys.viewer });
    expect(prompts.status).toBe(200);
    expect(prompts.body).toMatchObject({ page: { id: pageId, shown: true, answers: 2 }, total: 1 });
    expect(prompts.body.prompts[0]).toMatchObject({
      text: 'Which shop sells product A?',
      answers: [{ provider: 'openai' }, { provider: 'perplexity' }],
    });
    const none = (await pages('?q=docs/api')).body.pages[0].id;
    expect(
      (await app.request('GET', `/projects/${siteId}/pages/${none}/prompts`, { key: ws.keys.viewer })).body,
    ).toMatchObject({ prompts: [], total: 0 });
    expect((await app.request('GET', `/projects/${siteId}/pages/999999/prompts`, { key: ws.keys.viewer })).status).toBe(
      404,
    );
  });

  it('keeps listed pages and adds new ones on a member’s import; viewers may not import', async () => {
    site.set('/sitemaps/docs.xml', urlset(['/docs/start', '/docs/api', '/docs/webhooks']));
    site.set('/docs/webhooks', html('Webhooks'));
    expect(
      (await app.request('POST', `/projects/${siteId}/pages/import-sitemap`, { key: ws.keys.viewer })).status,
    ).toBe(403);
    const res = await app.request('POST', `/projects/${siteId}/pages/import-sitemap`, { key: ws.keys.member });
    expect(res.status).toBe(200);
    expect(res.body.import).toMatchObject({
      state: 'done',
      trigger: 'manual',
      urls: 9,
      added: 1,
      kept: 8,
      titles: { read: 1 },
    });
    expect((await pages('?q=webhooks')).body.pages[0]).toMatchObject({ title: 'Webhooks' });
    // A page no longer listed is kept.
    site.set('/sitemaps/docs.xml', urlset(['/docs/start']));
    expect(await importThroughWorker()).toMatchObject({ status: 'done', added: 0, kept: 7 });
    expect((await pages()).body.total).toBe(9);
    serveGoodSite();
  });

  it('runs one import at a time per site', async () => {
    const [a, b] = await Promise.all([
      requestSitemapImport(app.ctx, { id: siteId }, null, 'manual'),
      requestSitemapImport(app.ctx, { id: siteId }, null, 'manual'),
    ]);
    expect(a.import.id).toBe(b.import.id);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    await waitFor(
      () =>
        app.ctx.db
          .selectFrom('sitemapImports')
          .select('status')
          .where('id', '=', a.import.id)
          .executeTakeFirstOrThrow(),
      (r) => r.status === 'done' || r.status === 'failed',
      20_000,
    );
  });

  it('falls back to /sitemap.xml without robots Sitemap lines, and says when there is none', async () => {
    site.set('/robots.txt', 'User-agent: *\nDisallow:\n');
    const none = await importThroughWorker();
    expect(none).toMatchObject({ status: 'done', foundVia: 'default', urls: 0 });
    expect(none.notes.join(' ')).toMatch(
      /no sitemap: robots.txt lists none and https:\/\/www\.fixture-shop\.com\/sitemap\.xml answered 404/,
    );
    site.set('/sitemap.xml', urlset(['/products/a']));
    expect(await importThroughWorker()).toMatchObject({ status: 'done', foundVia: 'default', urls: 1, kept: 1 });
    site.remove('/sitemap.xml');
    serveGoodSite();
  });
});

describe('bad input ends the import with its reason and the pages as they were', () => {
  const cases: [string, () => void, RegExp][] = [
    [
      'a sitemap that is not XML',
      () => site.set('/sitemaps/docs.xml', '<!doctype html><html><body><p>Oops<br></body></html>'),
      /sitemaps\/docs\.xml is not a sitemap: not well-formed XML/,
    ],
    [
      'a document that is not a sitemap',
      () => site.set('/sitemaps/docs.xml', '<rss version="2.0"><channel/></rss>'),
      /root element is <rss>/,
    ],
    [
      'a loop of sitemap indexes',
      () => site.set('/sitemaps/docs.xml', index(['/sitemaps/nested-index.xml'])),
      /sitemap index loop: .*nested-index\.xml lists .*docs\.xml lists .*nested-index\.xml/,
    ],
    [
      'a 10 GB response',
      () =>
        site.set('/sitemaps/docs.xml', {
          handle: (_req, res) => {
            res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(10 * 2 ** 30) });
            res.write('<urlset>');
          },
        }),
      /docs\.xml is larger than 50 MB/,
    ],
    [
      'an endless response',
      () =>
        site.set('/sitemaps/docs.xml', {
          handle: (_req, res) => {
            res.writeHead(200, { 'content-type': 'application/xml' });
            res.write('<urlset>');
            const chunk = Buffer.from(`<url><loc>${ORIGIN}/x</loc></url>`.repeat(2000));
            const pump = () => {
              while (!res.destroyed && res.write(chunk));
            };
            res.on('drain', pump);
            pump();
          },
        }),
      /(larger than 50 MB|more than 50,000 entries)/,
    ],
    [
      'a slow-loris origin',
      () =>
        site.set('/sitemaps/docs.xml', {
          handle: (_req, res) => {
            res.writeHead(200, { 'content-type': 'application/xml' });
            const drip = setInterval(() => res.write(' '), 100);
            res.on('close', () => clearInterval(drip));
          },
        }),
      /did not answer in full within 6 s/,
    ],
    [
      'a redirect to 127.0.0.1',
      () => site.set('/sitemaps/docs.xml', { status: 302, headers: { location: 'https://127.0.0.1/sitemap.xml' } }),
      /127\.0\.0\.1, a loopback address; not fetched/,
    ],
    [
      'a redirect to a plain-http loopback',
      () =>
        site.set('/sitemap_index.xml', {
          status: 301,
          headers: { location: `http://127.0.0.1:${site.port}/sitemaps/docs.xml` },
        }),
      /only https/,
    ],
    [
      'more than 50,000 URLs in one file',
      () => site.set('/sitemaps/docs.xml', urlset(Array.from({ length: 50_001 }, (_, i) => `/p/${i}`))),
      /lists more than 50,000 entries/,
    ],
  ];

  it.each(cases)('%s', async (_name, breakIt, reason) => {
    const before = (await pages()).body.total;
    breakIt();
    try {
      const done = await importThroughWorker();
      expect(done.status).toBe('failed');
      expect(done.error).toMatch(reason);
      const res = await pages();
      expect(res.body.total).toBe(before);
      expect(res.body.import).toMatchObject({ state: 'failed', error: done.error });
    } finally {
      serveGoodSite();
    }
  });

  it('a sitemap its thread cannot read within the deadline', async () => {
    const before = (await pages()).body.total;
    // About 8 MB: parsing it takes far longer than the 100 ms allowed here (SITE_PARSE_TIMEOUT_MS is 20 s by default).
    site.set('/sitemaps/docs.xml', {
      body: urlset(Array.from({ length: 40_000 }, (_, i) => `/docs/${i}`)),
      gzip: true,
    });
    const pool = app.ctx.siteFilePool();
    const reader = {
      ...siteFileReaderFor(app.config, pool),
      sitemap: createSiteFileReader({ deadlineMs: 100, pool }).sitemap,
    };
    try {
      const { import: row } = await requestSitemapImport(app.ctx, { id: siteId }, null, 'manual', { queue: false });
      expect(await runSitemapImport(app.ctx, siteId, row.id, { reader })).toEqual({
        state: 'failed',
        error: 'https://www.fixture-shop.com/sitemaps/docs.xml took too long to read (over 100 ms); it was not used',
      });
      const res = await pages();
      expect(res.body.total).toBe(before);
      expect(res.body.import).toMatchObject({
        id: row.id,
        state: 'failed',
        error: expect.stringMatching(/docs\.xml took too long to read/),
      });
    } finally {
      serveGoodSite();
    }
  });

  it('reads sitemaps when robots.txt is 1 MB of junk', async () => {
    const junk = Array.from({ length: 40_000 }, (_, i) => `junk line ${i} ${'x'.repeat(i % 40)}`).join('\n');
    site.set('/robots.txt', junk.padEnd(1 << 20, 'y'));
    site.set('/sitemap.xml', urlset(['/products/a', '/products/b']));
    try {
      expect(await importThroughWorker()).toMatchObject({ status: 'done', foundVia: 'default', urls: 2 });
    } finally {
      site.remove('/sitemap.xml');
      serveGoodSite();
    }
  });
});

describe('rate limit', () => {
  it('allows 10 imports an hour per site, then 429 with Retry-After', async () => {
    const other = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Other Shop', url: 'other-shop.com' },
    });
    const otherId = other.body.project.id;
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push(
        (await app.request('POST', `/projects/${otherId}/pages/import-sitemap`, { key: ws.keys.member })).status,
      );
    expect(statuses).toEqual(Array(10).fill(200));
    const refused = await app.request('POST', `/projects/${otherId}/pages/import-sitemap`, { key: ws.keys.admin });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(refused.body).toEqual({
      error: expect.stringMatching(/at most 10 sitemap imports per site an hour/),
      fields: null,
    });
    // Another site has its own count.
    expect(
      (await app.request('POST', `/projects/${siteId}/pages/import-sitemap`, { key: ws.keys.member })).status,
    ).toBe(200);
  });
});
