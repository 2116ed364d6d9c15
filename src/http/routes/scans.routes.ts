import { z } from 'zod';
import type { SiteRow } from '../../db/schema.ts';
import { cancelScan, estimateScan, listScans, liveScan, scanDetail, scanOptions, SCAN_TABS, startScan } from '../../domain/scans/scans.ts';
import { ValidationError } from '../../errors.ts';
import type { AppContext } from '../../context.ts';
import { defineRoute, json, type Route } from '../route.ts';
import { modelsByProvider, providerKey, usdAmount } from '../schemas.ts';

const scanBody = z.object({
  providers: z.array(providerKey).max(6).optional(),
  promptIds: z.array(z.number().int().positive()).max(5000, 'at most 5000 prompt ids').optional(),
  category: z.string().trim().max(100).nullish(),
  sample: z.number().int('must be a whole number').min(1, 'at least 1').max(5000, 'at most 5000').optional(),
  models: modelsByProvider.optional(),
  batch: z.boolean({ error: 'must be true or false' }).optional(),
  saved: z.boolean({ error: 'must be true or false' }).optional(),
  budgetUsd: usdAmount.optional(),
  label: z.string().trim().max(200, 'at most 200 characters').optional(),
});

const detailQuery = z.object({
  tab: z.enum(SCAN_TABS, { error: `must be one of ${SCAN_TABS.join(', ')}` }).default('all'),
  engine: providerKey.optional(),
  page: z.coerce.number({ error: 'must be a page number' }).int('must be a whole number').min(1, 'pages start at 1').default(1),
});

function checkVariant(ctx: AppContext, body: { batch?: boolean | undefined }) {
  // `batch` belongs to variant B (CONTRACT.md "Variants": a field of an unserved variant is 422).
  if (body.batch !== undefined && !ctx.config.apiVariant.includes('B')) throw new ValidationError({ batch: 'batch is not available on this deployment' });
}

const site = (s: SiteRow | null) => s as SiteRow;

export const scanRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scan-options',
    summary: 'Connected assistants with their models and cost per answer, active prompts per category, scans used this month, the site’s spend this month',
    access: 'viewer',
    handler: async ({ ctx, site: s }) => json(await scanOptions(ctx, site(s))),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans/estimate',
    summary: 'Expected cost of a scan as configured (same body as start)',
    access: 'viewer',
    body: scanBody,
    example: { providers: ['openai', 'perplexity'], sample: 20 },
    handler: async ({ ctx, site: s, body }) => {
      checkVariant(ctx, body);
      return json(await estimateScan(ctx, site(s), body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans',
    summary: 'Start a scan; 400 with the reason when it cannot start (402 when the balance does not cover it, variant A)',
    access: 'admin',
    body: scanBody,
    example: { providers: ['openai'], label: 'Weekly check' },
    handler: async ({ ctx, site: s, principal, body }) => {
      checkVariant(ctx, body);
      return json(await startScan(ctx, site(s), principal.user.id, body));
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans/live',
    summary: 'The scan in progress with pace and time left; `run` is null when none',
    access: 'viewer',
    handler: async ({ ctx, site: s }) => json(await liveScan(ctx, site(s).id)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/scans/:scanId/cancel',
    summary: 'Stop a queued or running scan',
    access: 'admin',
    handler: async ({ ctx, site: s, ids }) => json(await cancelScan(ctx, site(s).id, ids.scanId as number)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans',
    summary: 'The last 30 scans',
    access: 'viewer',
    handler: async ({ ctx, site: s }) => json(await listScans(ctx, site(s).id)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/scans/:scanId',
    summary: 'One scan and its collected answers, 25 a page (tab all, notNamed, competitorsOnly, errors; engine)',
    access: 'viewer',
    query: detailQuery,
    handler: async ({ ctx, site: s, ids, query }) => json(await scanDetail(ctx, site(s).id, ids.scanId as number, query)),
  }),
];
