import { gzipSync } from 'node:zlib';
import { accessLog } from './access-log.ts';
import type { FixtureRoute } from './server.ts';

/**
 * The demo brand's web site (Brightdesk, www.brightdesk.com: the domain the
 * simulator cites for the brand, so demo answers link its pages), served locally
 * by `npm start` so the demo site has pages and a crawler check without
 * touching the internet: a robots.txt that blocks some AI crawlers, a
 * sitemap index with a gzipped part, titled pages and an llms.txt, and the
 * site's access log of the last two weeks (`/logs/access.log.gz`, as a log
 * drain or a bucket would serve it), which the demo imports.
 */

export const DEMO_SITE_DOMAIN = 'brightdesk.com';
const ORIGIN = 'https://www.brightdesk.com';

const PAGES: [string, string][] = [
  ['/', 'Brightdesk – The AI help desk for growing support teams'],
  ['/pricing', 'Pricing – Brightdesk'],
  ['/features', 'Features – Brightdesk'],
  ['/features/ai-answers', 'AI answers for every ticket – Brightdesk'],
  ['/features/live-chat', 'Live chat – Brightdesk'],
  ['/integrations/slack', 'Brightdesk for Slack'],
  ['/integrations/shopify', 'Brightdesk for Shopify'],
  ['/customers', 'Customer stories – Brightdesk'],
  ['/compare/zendesk-alternative', 'The Zendesk alternative for small teams – Brightdesk'],
  ['/compare/freshdesk', 'Brightdesk vs Freshdesk'],
  ['/docs/getting-started', 'Getting started – Brightdesk Docs'],
  ['/help/ai-answers', 'How AI answers work – Brightdesk Help'],
  ['/about', 'About us – Brightdesk'],
];

const BLOG: [string, string][] = [
  ['/blog/choosing-a-helpdesk', 'How to choose a help desk in 2026 – Brightdesk Blog'],
  ['/blog/ai-chatbots-for-support', 'AI chatbots for customer support: what works – Brightdesk Blog'],
  ['/blog/slack-support-workflows', 'Support workflows in Slack – Brightdesk Blog'],
  ['/blog/help-scout-vs-freshdesk', 'Help Scout vs Freshdesk, honestly – Brightdesk Blog'],
];

const urlset = (pages: [string, string][]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${pages
    .map(([path]) => `  <url><loc>${ORIGIN}${path}</loc><lastmod>2026-11-01</lastmod></url>`)
    .join('\n')}\n</urlset>\n`;

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta property="og:title" content="${title}"></head><body><h1>${title}</h1></body></html>`;

/** Where the demo site serves its access log; the demo site's log import pulls it through the site-fetch guard. */
export const DEMO_LOG_URL = `${ORIGIN}/logs/access.log.gz`;
const DEMO_LOG_LINES = 30_000;
const DAY_MS = 86_400_000;

/** The demo site's access log: the fourteen days up to `now`, people and crawlers on its pages (most visited first). */
export function demoAccessLog(now: number): Buffer {
  const paths = [...PAGES, ...BLOG].map(([path]) => path);
  const blocks = [
    ...accessLog({
      pages: paths,
      host: 'www.brightdesk.com',
      from: now - 14 * DAY_MS,
      to: now - 60_000,
      lines: DEMO_LOG_LINES,
      seed: 2026,
    }),
  ];
  return gzipSync(blocks.join(''));
}

export function demoSiteRoutes(now: number = Date.now()): Record<string, FixtureRoute | string> {
  return {
    '/logs/access.log.gz': { body: demoAccessLog(now), type: 'application/gzip' },
    '/robots.txt': [
      '# Brightdesk robots.txt',
      'User-agent: *',
      'Disallow: /admin/',
      'Disallow: /search',
      '',
      '# No model training on our content',
      'User-agent: GPTBot',
      'User-agent: CCBot',
      'User-agent: Bytespider',
      'Disallow: /',
      '',
      'User-agent: ClaudeBot',
      'Allow: /',
      'Disallow: /app/',
      '',
      `Sitemap: ${ORIGIN}/sitemap_index.xml`,
      '',
    ].join('\n'),
    '/sitemap_index.xml': `<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n  <sitemap><loc>${ORIGIN}/sitemaps/pages.xml</loc></sitemap>\n  <sitemap><loc>${ORIGIN}/sitemaps/blog.xml.gz</loc></sitemap>\n</sitemapindex>\n`,
    '/sitemaps/pages.xml': urlset(PAGES),
    '/sitemaps/blog.xml.gz': { body: gzipSync(urlset(BLOG)), type: 'application/gzip' },
    '/llms.txt': [
      '# Brightdesk',
      '',
      '> Brightdesk is an AI help desk for growing support teams: shared inbox, live chat and AI answers.',
      '',
      '## Product',
      `- [Features](${ORIGIN}/features): what Brightdesk does`,
      `- [Pricing](${ORIGIN}/pricing): plans and prices`,
      '',
      '## Docs',
      `- [Getting started](${ORIGIN}/docs/getting-started)`,
      '',
    ].join('\n'),
    ...Object.fromEntries(
      [...PAGES, ...BLOG].map(([path, title]) => [path, { body: page(title), type: 'text/html; charset=utf-8' }]),
    ),
  };
}
