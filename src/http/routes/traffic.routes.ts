import {
  listCrawlerLogs,
  postCrawlerLog,
  pullCrawlerLog,
  crawlerTrafficReport,
  crawlerLogImportList,
  crawlerLogImportResponse,
  crawlerTraffic,
  crawlerLogListSchema,
  crawlerLogPostQuerySchema,
  crawlerLogPostSchema,
  crawlerLogPullSchema,
  trafficQuerySchema,
} from '../../domain/traffic/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

const WAITING = 'Twenty log imports of this project are waiting to be read; send more when they are done (Retry-After)';

/** AI crawler traffic from the site's server logs (src/domain/traffic). */
export const trafficRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/crawler-logs',
    operationId: 'importCrawlerLog',
    tag: 'Traffic',
    mcp: { tool: 'import_crawler_log', lead: 'Send log lines as contents (JSON text).' },
    summary:
      'Import a piece of server access log: JSON {contents (up to 2,000,000 characters), format: auto, combined or json}, or a gzip file sent as Content-Type: application/gzip (format in the query) up to the body limit; answers the import when done within a few seconds, else its progress',
    access: 'member',
    body: crawlerLogPostSchema,
    rawBody: {
      contentType: 'application/gzip',
      description: 'A gzip file of log lines (combined or JSON), up to the 4 MB body limit',
    },
    query: crawlerLogPostQuerySchema,
    example: {
      contents:
        '203.0.113.9 - - [20/Nov/2026:08:01:12 +0000] "GET /pricing HTTP/1.1" 200 1834 "-" "Mozilla/5.0 (compatible; GPTBot/1.2)"\n',
      format: 'auto',
    },
    responses: { 200: crawlerLogImportResponse, 429: WAITING },
    handler: async ({ ctx, site, principal, body, raw, query }) =>
      json(
        await postCrawlerLog(
          ctx,
          site,
          principal.user.id,
          raw
            ? { gzip: raw, format: query.format ?? 'auto' }
            : { contents: body?.contents ?? '', format: body?.format ?? query.format ?? 'auto' },
        ),
      ),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/crawler-logs/pull',
    operationId: 'pullCrawlerLog',
    tag: 'Traffic',
    mcp: { tool: 'pull_crawler_log' },
    summary:
      'Import a server access log from an https address (a log drain, a presigned object URL; gzip allowed), fetched through the site-fetch guard and read as it streams; answers the import when done within a few seconds, else its progress',
    access: 'member',
    body: crawlerLogPullSchema,
    example: { url: 'https://logs.example.com/access.log.gz', format: 'auto' },
    responses: { 200: crawlerLogImportResponse, 429: WAITING },
    handler: async ({ ctx, site, principal, body }) => json(await pullCrawlerLog(ctx, site, principal.user.id, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/crawler-logs',
    operationId: 'listCrawlerLogs',
    tag: 'Traffic',
    mcp: { tool: 'list_crawler_logs' },
    summary:
      'The project’s log imports, newest first: lines, counted, duplicates, skipped, other, state, error and a sample of the lines skipped; page, perPage (5 to 200, default 20)',
    access: 'viewer',
    query: crawlerLogListSchema,
    responses: { 200: crawlerLogImportList },
    handler: async ({ ctx, site, query }) => json(await listCrawlerLogs(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/crawler-traffic',
    operationId: 'getCrawlerTraffic',
    tag: 'Traffic',
    mcp: {
      tool: 'get_crawler_traffic',
      lead: 'What AI crawlers fetched and which visits assistants sent, from imported server logs.',
    },
    summary:
      'What AI agents fetched in a period (period, start): per agent hits, pages, verified share against published ranges, status classes and top pages; pages serving them errors or redirects; visits assistants sent per assistant and landing page; pages crawled but not cited and cited but not crawled',
    access: 'viewer',
    query: trafficQuerySchema,
    responses: { 200: crawlerTraffic },
    handler: async ({ ctx, site, query }) => json(await crawlerTrafficReport(ctx, site, query)),
  }),
];
