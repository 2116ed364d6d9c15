import { cancelScan, estimateScan, listScans, liveScan, scanDetail, scanOptions, startScan } from '../../domain/scans/scans.ts';
import { SCAN_PAGE_DEFAULT, samplingPlanQuerySchema, scanDetailQuerySchema, scanListQuerySchema, scanRequestSchema } from '../../domain/scans/schemas.ts';
import { samplingPlan } from '../../domain/scans/sampling-plan.ts';
import { defineRoute, json, type Route } from '../route.ts';
import {
  liveScan as liveScanResponse,
  scanDetail as scanDetailResponse,
  scanEstimate,
  scanList,
  samplingPlan as samplingPlanResponse,
  scanOptions as scanOptionsResponse,
  scanResponse,
  scanStarted,
} from '../../domain/scans/responses.ts';

/** Scans: options, estimate, start, live progress, cancel, history and one scan's answers (src/domain/scans). */
export const scanRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scan-options',
    summary: 'Connected assistants with their models and cost per answer, active prompts per category, scans used this month, the site’s spend this month',
    access: 'viewer',
    responses: { 200: scanOptionsResponse },
    handler: async ({ ctx, site }) => json(await scanOptions(ctx, site)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans/estimate',
    summary: 'Expected cost of a scan as configured (same body as start)',
    access: 'viewer',
    body: scanRequestSchema,
    variantFields: { batch: 'B' },
    example: { providers: ['openai', 'perplexity'], sample: 20 },
    responses: { 200: scanEstimate },
    handler: async ({ ctx, site, body }) => json(await estimateScan(ctx, site, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans',
    summary: 'Start a scan; 400 with the reason when it cannot start (402 when the balance does not cover it, variant A)',
    access: 'admin',
    body: scanRequestSchema,
    variantFields: { batch: 'B' },
    example: { providers: ['openai'], label: 'Weekly check' },
    responses: {
      200: scanStarted,
      400: 'Malformed JSON, or the scan cannot start: another is running, no active prompts, the monthly cap is spent, the scans-per-month limit is reached, an assistant is not connected (or, on a deployment serving variant B alone, the balance does not cover it)',
      402: 'The balance does not cover the scan’s estimated cost (deployments serving variant A)',
    },
    handler: async ({ ctx, site, principal, body }) => json(await startScan(ctx, site, principal.user.id, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans/live',
    summary: 'The scan in progress with pace and time left; `run` is null when none',
    access: 'viewer',
    responses: { 200: liveScanResponse },
    handler: async ({ ctx, site }) => json(await liveScan(ctx, site)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans/:scanId/cancel',
    summary: 'Stop a queued or running scan',
    access: 'admin',
    responses: { 200: scanResponse, 400: 'The scan is not queued or running' },
    handler: async ({ ctx, site, ids }) => json(await cancelScan(ctx, site, ids.scanId)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans',
    summary: `Scans, newest first: the last ${SCAN_PAGE_DEFAULT} unless asked otherwise (page, perPage: 5 to 200, default ${SCAN_PAGE_DEFAULT})`,
    access: 'viewer',
    query: scanListQuerySchema,
    responses: { 200: scanList },
    handler: async ({ ctx, site, query }) => json(await listScans(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans/:scanId',
    summary: 'One scan and its collected answers, 25 a page (tab all, notNamed, competitorsOnly, errors; engine)',
    access: 'viewer',
    query: scanDetailQuerySchema,
    responses: { 200: scanDetailResponse },
    handler: async ({ ctx, site, ids, query }) => json(await scanDetail(ctx, site, ids.scanId, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/sampling-plan',
    summary:
      'How many samples per prompt and assistant a scan needs for a move of `detect` points (default 5) in visibility to be called real at 95%, given the site’s prompts, assistants and the spread of its past answers; and what such a scan costs',
    access: 'viewer',
    query: samplingPlanQuerySchema,
    responses: { 200: samplingPlanResponse, 400: 'No assistant is both allowed for this project and connected' },
    handler: async ({ ctx, site, query }) => json(await samplingPlan(ctx, site, query)),
  }),
];
