import { z } from 'zod';
import { count, dateTime, id, named, paging, usd } from '../common/index.ts';
import { EVENT_TYPES } from './event-types.ts';

/** Response schemas of webhooks and their deliveries (see src/domain/common/responses.ts). */

const webhookFields = {
  id,
  url: z.string(),
  events: z.array(z.enum([...EVENT_TYPES, '*'])).describe('Event types it receives, or ["*"] for every one'),
  projectIds: z
    .array(id)
    .nullable()
    .describe('Projects whose events it receives; null for every project (workspace events reach it either way)'),
  format: z
    .enum(['standard', 'slack'])
    .describe('standard: Standard Webhooks, signed; slack: a Slack incoming-webhook message'),
  description: z.string().nullable(),
  enabled: z.boolean(),
  disabledReason: z
    .string()
    .nullable()
    .describe(
      'Why deliveries stopped: a 410, 50 failed attempts in a row, or failures throughout 3 days; null while enabled',
    ),
  failures: count.describe('Failed attempts in a row'),
  failingSince: dateTime.nullable().describe('When the current run of failures began'),
  previousSecretExpiresAt: dateTime
    .nullable()
    .describe('After a rotation, until when deliveries are signed with the previous secret too'),
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const webhook = named(
  'Webhook',
  'A webhook endpoint of the workspace; its secret is shown only when created or rotated',
  z.object(webhookFields),
);

const withSecret = z.object({
  ...webhookFields,
  secret: z.string().describe('`whsec_` + base64: verify deliveries with it (Standard Webhooks). Shown this once'),
});

export const createdWebhook = named(
  'CreatedWebhook',
  'The webhook created, with its signing secret (shown this once)',
  z.object({ webhook: withSecret }),
);
export const webhookResponse = named('WebhookResponse', 'One webhook', z.object({ webhook }));
export const webhookList = named(
  'WebhookList',
  'The workspace’s webhooks, oldest first',
  z.object({ webhooks: z.array(webhook), total: count, page: count, perPage: count, limit: count }),
);
export const deletedWebhook = named(
  'DeletedWebhook',
  'The webhook, deleted with its deliveries',
  z.object({ deleted: z.boolean(), webhook }),
);
export const rotatedWebhook = named(
  'RotatedWebhook',
  'The webhook with its new secret (shown this once); the previous one still signs deliveries until previousSecretExpiresAt',
  z.object({ webhook: withSecret }),
);

const attempt = z.object({
  at: dateTime,
  statusCode: z
    .int()
    .nullable()
    .describe('What the receiver answered; null when it did not (timeout, refused, network)'),
  error: z.string().nullable(),
  latencyMs: count,
  response: z.string().nullable().describe('The first 1 KB of the answer'),
  replay: z.boolean(),
});

export const delivery = named(
  'WebhookDelivery',
  'One event sent to one webhook: its state and its latest attempts',
  z.object({
    id,
    eventId: z.string().describe('The event’s id, sent as `webhook-id` with every attempt'),
    type: z.enum(EVENT_TYPES),
    projectId: id.nullable(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: count,
    lastStatusCode: z.int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: dateTime.nullable().describe('When the next attempt is due; null once delivered or failed'),
    deliveredAt: dateTime.nullable(),
    createdAt: dateTime,
    attemptLog: z.array(attempt).describe('The latest attempts, newest first (10 at most)'),
  }),
);

export const deliveryList = named(
  'WebhookDeliveryList',
  'A webhook’s deliveries, newest first',
  z.object({ deliveries: z.array(delivery), ...paging }),
);
export const deliveryResponse = named('WebhookDeliveryResponse', 'One delivery', z.object({ delivery }));
export const testResult = named(
  'WebhookTestResult',
  'The test event and its delivery: its first attempt when it ended within a few seconds, else pending',
  z.object({ event: z.object({ id: z.string(), type: z.literal('webhook.test') }), delivery }),
);

export const alertSettingsResponse = named(
  'AlertSettings',
  'When balance.low fires: the workspace’s threshold, or by default 10% of its last top-up',
  z.object({
    balanceLowUsd: usd.nullable().describe('The threshold set; null for the default'),
    effectiveBalanceLowUsd: usd
      .nullable()
      .describe('The threshold in force; null when there is none (no setting and no top-up yet)'),
    lastTopUpUsd: usd.nullable(),
    balanceUsd: usd,
  }),
);
