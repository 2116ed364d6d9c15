import { checkCrawlersNow, crawlerReport, crawlerReportResponse } from '../../domain/crawlers/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** What AI crawlers may read of the site, and its llms.txt (src/domain/crawlers). */
export const crawlerRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/crawlers',
    operationId: 'getCrawlers',
    tag: 'Crawlers',
    mcp: { tool: 'get_crawlers' },
    summary: 'Per AI crawler: what robots.txt lets it read and the deciding line; llms.txt; the history of checks',
    access: 'viewer',
    responses: { 200: crawlerReportResponse },
    handler: async ({ ctx, site }) => json(await crawlerReport(ctx, site)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/crawlers/check',
    operationId: 'checkCrawlers',
    tag: 'Crawlers',
    summary:
      'Re-read robots.txt and llms.txt now; up to 10 calls an hour per site; answers the same as the GET (with the check’s progress if it takes more than a few seconds)',
    access: 'member',
    responses: { 200: crawlerReportResponse, 429: 'More than 10 crawler checks this hour for this project' },
    handler: async ({ ctx, site, principal }) => json(await checkCrawlersNow(ctx, site, principal.user.id)),
  }),
];
