import { z } from 'zod';
import {
  booleanField,
  idSchema,
  modelsByProvider,
  providerKey,
  samplesField,
  text,
  usdAmount,
  pagingShape,
} from '../common/index.ts';

/** Request schemas of scans: what to ask (estimate and start take the same body) and the detail view. */

export const scanRequestSchema = z.object({
  providers: z.array(providerKey).max(6).optional(),
  promptIds: z.array(idSchema('a prompt id')).max(5000, 'at most 5000 prompt ids').optional(),
  category: text('category', 100, 0).nullish(),
  sample: z.number().int('must be a whole number').min(1, 'at least 1').max(5000, 'at most 5000').optional(),
  /** Answers per prompt and assistant (1 to 5); else the saved setting with `saved`, else 1. */
  samples: samplesField.optional(),
  models: modelsByProvider.optional(),
  /** Variant B: ask at batch prices. */
  batch: booleanField.optional(),
  saved: booleanField.optional(),
  budgetUsd: usdAmount.optional(),
  label: text('label', 200, 0).optional(),
});

export const SCAN_TABS = ['all', 'notNamed', 'competitorsOnly', 'errors'] as const;
export type ScanTab = (typeof SCAN_TABS)[number];

export const scanDetailQuerySchema = z.object({
  tab: z.enum(SCAN_TABS, { error: `must be one of ${SCAN_TABS.join(', ')}` }).default('all'),
  engine: providerKey.optional(),
  page: z.coerce
    .number({ error: 'must be a page number' })
    .int('must be a whole number')
    .min(1, 'pages start at 1')
    .default(1),
});

/** The first page is the last 30 scans (the spec's scan list); later pages reach older ones. */
export const SCAN_PAGE_DEFAULT = 30;
export const scanListQuerySchema = z.object(pagingShape(SCAN_PAGE_DEFAULT));

export type ScanRequest = z.output<typeof scanRequestSchema>;
export type ScanListQuery = z.output<typeof scanListQuerySchema>;
export type ScanDetailQuery = z.output<typeof scanDetailQuerySchema>;

/** GET /projects/:id/sampling-plan: the move in visibility, in points, a scan should be able to call real. */
export const samplingPlanQuerySchema = z.object({
  detect: z.coerce
    .number({ error: 'must be a number of points' })
    .min(0.5, 'must be at least 0.5 points')
    .max(50, 'must be at most 50 points')
    .default(5)
    .transform((v) => Math.round(v * 10) / 10),
});
export type SamplingPlanQuery = z.output<typeof samplingPlanQuerySchema>;
