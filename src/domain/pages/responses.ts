import { z } from 'zod';
import { count, dateTime, id, named, oneOf, paging, provider, verdict } from '../common/index.ts';

/** Response schemas of the site's pages (see src/domain/common/responses.ts). */

export const sitemapImport = named(
  'SitemapImport',
  'A sitemap import: its state, where the sitemaps were found, and what it added',
  z.object({
    id,
    state: z.enum(['queued', 'running', 'done', 'failed']),
    trigger: z.enum(['create', 'manual', 'schedule', 'cli']),
    foundVia: z
      .enum(['robots', 'default'])
      .nullable()
      .describe('robots: robots.txt Sitemap lines; default: /sitemap.xml'),
    sitemaps: count,
    urls: count,
    added: count,
    kept: count,
    skipped: count,
    titles: z.object({ read: count, failed: count }),
    notes: z.array(z.string()),
    error: z.string().nullable(),
    requestedAt: dateTime,
    startedAt: dateTime.nullable(),
    finishedAt: dateTime.nullable(),
  }),
);

export const page = named(
  'Page',
  'A page of the site from its sitemaps, and whether a current answer links to it (shown; answers linking)',
  z.object({
    id,
    url: z.string(),
    path: z.string(),
    section: z.string().describe('First part of the path; "/" for the home page'),
    title: z.string().nullable(),
    lastmod: dateTime.nullable(),
    shown: z.boolean(),
    answers: count,
    firstSeenAt: dateTime,
    lastSeenAt: dateTime,
  }),
);

export const pageList = named(
  'PageList',
  'A page of the site’s pages, the largest sections, and the latest sitemap import',
  z.object({
    pages: z.array(page),
    ...paging,
    sections: z.array(z.object({ section: z.string(), pages: count })),
    import: sitemapImport.nullable(),
  }),
);

export const pagePromptsResponse = named(
  'PagePrompts',
  'The prompts whose current answers link to the page, with each linking answer',
  z.object({
    page,
    prompts: z.array(
      z.object({
        id,
        text: z.string(),
        status: oneOf(['draft', 'active', 'paused']),
        answers: z.array(z.object({ provider, answerId: id, askedAt: dateTime, verdict })),
      }),
    ),
    total: count,
  }),
);

export const sitemapImportResponse = named(
  'SitemapImportResponse',
  'The import: done when it finished within a few seconds, else its progress',
  z.object({ import: sitemapImport }),
);
