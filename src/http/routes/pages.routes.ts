import {
  importSitemapNow,
  listPages,
  pageListQuerySchema,
  pagePrompts,
  pageList,
  pagePromptsResponse,
  sitemapImportResponse,
} from '../../domain/pages/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** The site's pages from its sitemaps, and which of them the assistants link to (src/domain/pages). */
export const pageRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/pages',
    operationId: 'listPages',
    tag: 'Pages',
    mcp: { tool: 'list_pages' },
    summary:
      'Pages from the sitemap with titles and whether a current answer links to each; q, section (first part of the path, "/" for the home page), shown (yes, no), page, perPage (5 to 200, default 50)',
    access: 'viewer',
    query: pageListQuerySchema,
    responses: { 200: pageList },
    handler: async ({ ctx, site, query }) => json(await listPages(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/pages/:pageId/prompts',
    operationId: 'listPagePrompts',
    tag: 'Pages',
    mcp: { tool: 'get_page_prompts' },
    summary: 'Prompts whose current answers link to the page, with each linking answer',
    access: 'viewer',
    responses: { 200: pagePromptsResponse },
    handler: async ({ ctx, site, ids }) => json(await pagePrompts(ctx, site, ids.pageId)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/pages/import-sitemap',
    operationId: 'importSitemap',
    tag: 'Pages',
    summary:
      'Re-read the sitemap now and add unlisted pages; up to 10 calls an hour per site; answers the import when done within a few seconds, else its progress',
    access: 'member',
    responses: { 200: sitemapImportResponse, 429: 'More than 10 sitemap imports this hour for this project' },
    handler: async ({ ctx, site, principal }) => json(await importSitemapNow(ctx, site, principal.user.id)),
  }),
];
