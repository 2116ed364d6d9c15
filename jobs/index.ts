import type { JobName } from '../src/queue/catalog.ts';
import { crawlerCheck, crawlerCheckExhausted, crawlerCheckTick } from './crawler-check.ts';
import { logImport, logImportExhausted } from './log-import.ts';
import { reanalyse } from './reanalyse.ts';
import { retentionTick } from './retention.ts';
import { rewrite } from './rewrite.ts';
import { scan, scanExhausted } from './scan.ts';
import { scanReconcile } from './scan-reconcile.ts';
import { scheduleTick } from './schedule-tick.ts';
import { sitemapImport, sitemapImportExhausted, sitemapImportTick } from './sitemap-import.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';
import { webhookDelivery, webhookPeriodTick, webhookReconcile } from './webhooks.ts';

/** Exactly one handler per job of the catalog; the mapped type makes a missing one a type error. */
export const handlers: { [N in JobName]: JobHandler<N> } = {
  reanalyse,
  scan,
  'schedule-tick': scheduleTick,
  'scan-reconcile': scanReconcile,
  rewrite,
  'sitemap-import': sitemapImport,
  'crawler-check': crawlerCheck,
  'sitemap-import-tick': sitemapImportTick,
  'crawler-check-tick': crawlerCheckTick,
  'retention-tick': retentionTick,
  'webhook-delivery': webhookDelivery,
  'webhook-reconcile': webhookReconcile,
  'webhook-period-tick': webhookPeriodTick,
  'log-import': logImport,
};

export const exhaustedHandlers: { [N in JobName]?: ExhaustedHandler<N> } = {
  scan: scanExhausted,
  'sitemap-import': sitemapImportExhausted,
  'crawler-check': crawlerCheckExhausted,
  'log-import': logImportExhausted,
};
