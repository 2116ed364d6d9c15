import { pagingShape, booleanField, idSchema, text, usdAmount } from '../common/index.ts';
import { z } from 'zod';
import { EVENT_TYPES } from './event-types.ts';

/** Request schemas of webhooks (CONTRACT.md "Webhooks"). */

export const WEBHOOK_URL_MAX = 2000;
export const DESCRIPTION_MAX = 500;
export const SITE_IDS_MAX = 1000;

const eventName = z.enum([...EVENT_TYPES, '*'], {
  error: `each event must be one of ${EVENT_TYPES.join(', ')}, or "*" for every one`,
});

const events = z
  .array(eventName, { error: 'must be a list of event types' })
  .min(1, 'name at least one event type, or ["*"]')
  .max(EVENT_TYPES.length, `at most ${EVENT_TYPES.length} event types`)
  .refine((list) => new Set(list).size === list.length, 'lists an event type twice')
  .refine((list) => !list.includes('*') || list.length === 1, '"*" means every event type: send it alone');

const siteIds = z
  .array(idSchema('a project id'), { error: 'must be a list of project ids, or null for every project' })
  .max(SITE_IDS_MAX, `at most ${SITE_IDS_MAX} projects`)
  .transform((ids) => [...new Set(ids)])
  .nullable();

const format = z.enum(['standard', 'slack'], { error: 'must be standard or slack' });
const description = text('description', DESCRIPTION_MAX, 0)
  .nullable()
  .transform((v) => (v ? v : null));

/** POST /orgs/:orgId/webhooks. */
export const webhookCreateSchema = z.object({
  url: text('url', WEBHOOK_URL_MAX),
  events: events.default(['*']),
  projectIds: siteIds.default(null),
  format: format.default('standard'),
  description: description.optional().transform((v) => v ?? null),
});
export type WebhookCreate = z.output<typeof webhookCreateSchema>;

/** PATCH /orgs/:orgId/webhooks/:webhookId: what is sent changes; `enabled: true` starts a disabled webhook again. */
export const webhookUpdateSchema = z.object({
  url: text('url', WEBHOOK_URL_MAX).optional(),
  events: events.optional(),
  projectIds: siteIds.optional(),
  format: format.optional(),
  description: description.optional(),
  enabled: booleanField.optional(),
});
export type WebhookUpdate = z.output<typeof webhookUpdateSchema>;

export const DELIVERIES_PER_PAGE = 20;

/** GET /orgs/:orgId/webhooks pages like every list; 100 a page (the default cap of webhooks a workspace). */
export const WEBHOOKS_PER_PAGE = 100;
export const webhookListQuerySchema = z.object(pagingShape(WEBHOOKS_PER_PAGE));
export type WebhookListQuery = z.output<typeof webhookListQuerySchema>;

/** GET .../deliveries: newest first, 20 a page (perPage up to 100), optionally one status. */
export const deliveriesQuerySchema = z.object({
  page: z.coerce
    .number({ error: 'must be a page number' })
    .int('must be a whole number')
    .min(1, 'pages start at 1')
    .max(100_000, 'at most 100000')
    .default(1),
  perPage: z.coerce
    .number({ error: 'must be a number' })
    .int('must be a whole number')
    .min(1, 'at least 1')
    .max(100, 'at most 100')
    .default(DELIVERIES_PER_PAGE),
  status: z.enum(['pending', 'delivered', 'failed'], { error: 'must be pending, delivered or failed' }).optional(),
});
export type DeliveriesQuery = z.output<typeof deliveriesQuerySchema>;

/** PATCH /orgs/:orgId/alert-settings: balance.low's threshold in USD; null goes back to 10% of the last top-up. */
export const alertSettingsSchema = z.object({
  balanceLowUsd: usdAmount.nullable(),
});
export type AlertSettingsInput = z.output<typeof alertSettingsSchema>;
