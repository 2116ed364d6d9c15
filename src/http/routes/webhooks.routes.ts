import { listDeliveries, replayDelivery, testWebhook } from '../../domain/webhooks/deliveries.ts';
import { alertSettings, setAlertSettings } from '../../domain/webhooks/money-events.ts';
import {
  alertSettings as alertSettingsResponse,
  createdWebhook,
  deletedWebhook,
  deliveryList,
  deliveryResponse,
  rotatedWebhook,
  testResult,
  webhookList,
  webhookResponse,
} from '../../domain/webhooks/responses.ts';
import { alertSettingsSchema, deliveriesQuerySchema, webhookCreateSchema, webhookListQuerySchema, webhookUpdateSchema } from '../../domain/webhooks/schemas.ts';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateSecret, updateWebhook } from '../../domain/webhooks/webhooks.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Webhooks and their deliveries (src/domain/webhooks, CONTRACT.md "Webhooks"): admin keys only, reads included. */
export const webhookRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/webhooks',
    summary: 'The workspace’s webhooks (never their secrets)',
    access: 'admin',
    query: webhookListQuerySchema,
    responses: { 200: webhookList },
    handler: async ({ ctx, principal, query }) => json(await listWebhooks(ctx, principal.org.id, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/webhooks',
    summary:
      'Add a webhook: an https address on port 443 that is (or resolves to) a public address, the event types it receives (or ["*"]), its projects (null for all), its format (standard or slack). Answers its signing secret, this once',
    access: 'admin',
    body: webhookCreateSchema,
    example: {
      url: 'https://hooks.example.com/sightline',
      events: ['visibility.changed', 'scan.failed'],
      projectIds: null,
      format: 'standard',
      description: 'Alerts to the ops channel',
    },
    responses: {
      200: createdWebhook,
      400: 'Malformed JSON, or the workspace has the most webhooks it can have',
      422: 'Validation failed: a url that is not https or not public names `url`; an unknown project names `projectIds`',
    },
    handler: async ({ ctx, principal, body }) => json(await createWebhook(ctx, { orgId: principal.org.id, userId: principal.user.id }, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/webhooks/:webhookId',
    summary: 'One webhook (never its secret)',
    access: 'admin',
    responses: { 200: webhookResponse },
    handler: async ({ ctx, principal, ids }) => json(await getWebhook(ctx, principal.org.id, ids.webhookId)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/orgs/:orgId/webhooks/:webhookId',
    summary: 'Change a webhook’s address, events, projects, format or description; `enabled: true` starts a disabled one again, `false` stops it (its pending deliveries fail)',
    access: 'admin',
    body: webhookUpdateSchema,
    example: { events: ['*'], enabled: true },
    responses: { 200: webhookResponse },
    handler: async ({ ctx, principal, ids, body }) => json(await updateWebhook(ctx, principal.org.id, ids.webhookId, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/orgs/:orgId/webhooks/:webhookId',
    summary: 'Delete a webhook with its deliveries; nothing more is sent to it',
    access: 'admin',
    responses: { 200: deletedWebhook },
    handler: async ({ ctx, principal, ids }) => json(await deleteWebhook(ctx, principal.org.id, ids.webhookId)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:webhookId/test',
    summary: 'Send a webhook.test event to this webhook (it must receive webhook.test); answers the delivery, with its first attempt when that ends within a few seconds',
    access: 'admin',
    responses: { 200: testResult, 400: 'The webhook is disabled, or does not receive webhook.test', 429: 'More than 60 tests and replays of this webhook this hour' },
    handler: async ({ ctx, principal, ids }) => json(await testWebhook(ctx, principal.org.id, ids.webhookId)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:webhookId/rotate-secret',
    summary: 'A new signing secret, shown this once; the previous one still signs every delivery for 24 hours (both signatures are sent)',
    access: 'admin',
    responses: { 200: rotatedWebhook },
    handler: async ({ ctx, principal, ids }) => json(await rotateSecret(ctx, principal.org.id, ids.webhookId)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/webhooks/:webhookId/deliveries',
    summary: 'The webhook’s deliveries, newest first, 20 a page (perPage up to 100; status filters), each with its latest attempts',
    access: 'admin',
    query: deliveriesQuerySchema,
    responses: { 200: deliveryList },
    handler: async ({ ctx, principal, ids, query }) => json(await listDeliveries(ctx, principal.org.id, ids.webhookId, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/webhooks/:webhookId/deliveries/:deliveryId/replay',
    summary: 'Send a delivery again now, in any state, as one more attempt with the same webhook-id; answers it, with that attempt when it ends within a few seconds',
    access: 'admin',
    responses: { 200: deliveryResponse, 400: 'The webhook is disabled', 429: 'More than 60 tests and replays of this webhook this hour' },
    handler: async ({ ctx, principal, ids }) => json(await replayDelivery(ctx, principal.org.id, ids.webhookId, ids.deliveryId)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/alert-settings',
    summary: 'When balance.low fires: the workspace’s threshold, or by default 10% of its last top-up',
    access: 'admin',
    responses: { 200: alertSettingsResponse },
    handler: async ({ ctx, principal }) => json(await alertSettings(ctx, principal.org.id)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/orgs/:orgId/alert-settings',
    summary: 'Set the balance under which balance.low fires (USD), or null for 10% of the last top-up',
    access: 'admin',
    body: alertSettingsSchema,
    example: { balanceLowUsd: 25 },
    responses: { 200: alertSettingsResponse },
    handler: async ({ ctx, principal, body }) => json(await setAlertSettings(ctx, principal.org.id, body)),
  }),
];
