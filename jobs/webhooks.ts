import { runDelivery, runPeriodTick, reconcileDeliveries } from '../src/domain/webhooks/index.ts';
import type { JobHandler } from './types.ts';

export const webhookDelivery: JobHandler<'webhook-delivery'> = (ctx, { deliveryId, replay }) => runDelivery(ctx, deliveryId, { replay: replay !== undefined });

export const webhookReconcile: JobHandler<'webhook-reconcile'> = (ctx) => reconcileDeliveries(ctx);

export const webhookPeriodTick: JobHandler<'webhook-period-tick'> = (ctx) => runPeriodTick(ctx);
