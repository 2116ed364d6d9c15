import { periodQuerySchema } from '../../domain/reports/periods.ts';
import { competitorDetail } from '../../domain/reports/competitor-detail.ts';
import { siteCompetitors } from '../../domain/reports/competitors.ts';
import { siteReport } from '../../domain/reports/report.ts';
import { searchesQuerySchema, siteSearches } from '../../domain/reports/searches.ts';
import { sentimentQuerySchema, siteSentiment } from '../../domain/reports/site-sentiment.ts';
import { siteSources, sourcesQuerySchema } from '../../domain/reports/sources.ts';
import { siteTrends } from '../../domain/reports/trends.ts';
import { defineRoute, json, type Route } from '../route.ts';
import { competitorDetail as competitorDetailResponse, competitorReport, reportResponse, searches, sentiment, sources, trends } from '../../domain/reports/responses.ts';

const PERIOD = 'period (day, week, month, quarter; default week) and start (any date inside the period; default the latest period with data)';

/** The report endpoints (spec "Reports", src/domain/reports): every one reads rollups, never all answers. */
export const reportRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/report',
    operationId: 'getReport',
    tag: 'Reports',
    mcp: { tool: 'get_report' },
    summary: `The site's numbers for one period against the previous one: counts, share of voice, brand ranking, per-assistant rows, prompts won and lost, most cited sources, chart series; scope in variant A. Takes ${PERIOD}`,
    access: 'viewer',
    query: periodQuerySchema,
    responses: { 200: reportResponse },
    handler: async ({ ctx, site, query }) => json(await siteReport(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/trends',
    operationId: 'getTrends',
    tag: 'Reports',
    mcp: { tool: 'get_trends' },
    summary: `Ten periods ending with the one asked for: shares per period, every active prompt with its verdicts, prompts won and lost, shares per category, the held, volatile and lost prompts. Takes ${PERIOD}`,
    access: 'viewer',
    query: periodQuerySchema,
    responses: { 200: trends },
    handler: async ({ ctx, site, query }) => json(await siteTrends(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/sentiment',
    operationId: 'getSentiment',
    tag: 'Reports',
    mcp: { tool: 'get_sentiment' },
    summary: `Tone per assistant among answers naming the brand; answers=1 lists them with tone and quoted sentence (tone, engine, page, perPage). Takes ${PERIOD}`,
    access: 'viewer',
    query: sentimentQuerySchema,
    responses: { 200: sentiment },
    handler: async ({ ctx, site, query }) => json(await siteSentiment(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/sources',
    operationId: 'getSources',
    tag: 'Reports',
    mcp: { tool: 'get_sources' },
    summary: `Every cited domain with its site type and how often answers citing it name the brand (siteType, page, perPage); the brand's own pages with the prompts and assistants linking to each. Takes ${PERIOD}`,
    access: 'viewer',
    query: sourcesQuerySchema,
    responses: { 200: sources },
    handler: async ({ ctx, site, query }) => json(await siteSources(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/competitors',
    operationId: 'getCompetitors',
    tag: 'Competitors',
    mcp: { tool: 'get_competitors' },
    summary: `Tracked competitors against the brand: mentions overall and per assistant, head-to-head counts, suggestions of untracked names. Takes ${PERIOD}`,
    access: 'viewer',
    query: periodQuerySchema,
    responses: { 200: competitorReport },
    handler: async ({ ctx, site, query }) => json(await siteCompetitors(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/competitors/:competitorId',
    operationId: 'getCompetitor',
    tag: 'Competitors',
    mcp: { tool: 'get_competitor' },
    summary: `One competitor against the brand: paired numbers, per assistant, per category, prompts split three ways, its cited pages. Takes ${PERIOD}`,
    access: 'viewer',
    query: periodQuerySchema,
    responses: { 200: competitorDetailResponse },
    handler: async ({ ctx, site, ids, query }) => json(await competitorDetail(ctx, site, ids.competitorId, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/searches',
    operationId: 'getSearches',
    tag: 'Reports',
    mcp: { tool: 'get_searches' },
    summary: `Web searches the assistants ran for active prompts, most common first (page, perPage). Takes ${PERIOD}`,
    access: 'viewer',
    query: searchesQuerySchema,
    responses: { 200: searches },
    handler: async ({ ctx, site, query }) => json(await siteSearches(ctx, site, query)),
  }),
];
