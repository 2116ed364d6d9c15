import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { DeliveryStatus, WebhookFormat } from '../../db/schema.ts';
import { RetryLaterError } from '../../queue/retry-later.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { siteFetcherFor, type SiteFetcher } from '../../web/site-fetch.ts';
import { postThroughGuard } from '../../web/webhook-post.ts';
import type { EventType } from './event-types.ts';
import { takeSlot } from './in-flight.ts';
import { DISABLE_AFTER_FAILURES, DISABLE_AFTER_MS, retryDelayMs } from './retries.ts';
import { signedHeaders } from './signing.ts';
import { slackMessage } from './slack.ts';

/**
 * The `webhook-delivery` job: one attempt of one delivery. At least once: an
 * attempt is recorded after the receiver answered (or did not), so a worker
 * that dies mid-attempt leaves the delivery pending and a later run sends it
 * again, under the same `webhook-id`. A run holds the delivery's lease while
 * it sends (no two sends of one delivery at once) and one of the webhook's
 * in-flight slots (./in-flight.ts). Any 2xx delivers; 410 disables the
 * webhook; anything else, or no answer within the timeout, is retried on the
 * delivery's schedule (./retries.ts) by re-delaying the job, which holds no
 * worker slot while it waits. A replay is one more attempt, sent now, in
 * whatever state the delivery is.
 */

/** The part of a receiver's answer kept with each attempt. */
export const KEEP_ANSWER_BYTES = 1024;

const USER_AGENT = (contactUrl: string) => `SightlineWebhooks/1.0 (+${contactUrl})`;

interface DeliveryRow {
  id: number;
  status: DeliveryStatus;
  nextAttemptAt: Date;
  leaseUntil: Date | null;
  deliveredAt: Date | null;
  webhookId: number;
  url: string;
  format: WebhookFormat;
  enabled: boolean;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  uid: string;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** What one attempt gave: the status the receiver answered, or why there was none. */
export interface AttemptOutcome {
  statusCode: number | null;
  error: string | null;
  latencyMs: number;
  response: string | null;
}

function loadDelivery(ctx: AppContext, deliveryId: number): Promise<DeliveryRow | undefined> {
  return ctx.db
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhooks as w', 'w.id', 'd.webhookId')
    .innerJoin('webhookEvents as e', 'e.id', 'd.eventId')
    .select([
      'd.id',
      'd.status',
      'd.nextAttemptAt',
      'd.leaseUntil',
      'd.deliveredAt',
      'd.webhookId',
      'w.url',
      'w.format',
      'w.enabled',
      'w.secret',
      'w.previousSecret',
      'w.previousSecretExpiresAt',
      'e.uid',
      'e.type',
      'e.data',
      'e.createdAt',
    ])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
}

/** The body a delivery sends: `{type, timestamp, data}`, or a Slack message. */
export function deliveryBody(format: WebhookFormat, event: { type: string; data: Record<string, unknown>; createdAt: Date }): string {
  if (format === 'slack') return JSON.stringify(slackMessage({ type: event.type, data: event.data } as Parameters<typeof slackMessage>[0]));
  return JSON.stringify({ type: event.type as EventType, timestamp: event.createdAt.toISOString(), data: event.data });
}

/** The secrets a delivery is signed with now: the current one, and the previous one until it lapses. */
function secretsOf(row: Pick<DeliveryRow, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>, now: Date): string[] {
  return row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? [row.secret, row.previousSecret] : [row.secret];
}

async function attempt(ctx: AppContext, row: DeliveryRow, fetcher: SiteFetcher): Promise<AttemptOutcome> {
  const body = deliveryBody(row.format, row);
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT(ctx.config.siteFetch.contactUrl),
    ...signedHeaders(secretsOf(row, ctx.clock.now()), row.uid, ctx.clock.now(), body),
  };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const answer = await postThroughGuard(fetcher, row.url, body, headers, {
      timeoutMs: ctx.config.webhooks.timeoutMs,
      connectTimeoutMs: Math.min(ctx.config.siteFetch.connectTimeoutMs, ctx.config.webhooks.timeoutMs),
      keepBytes: KEEP_ANSWER_BYTES,
    });
    const ok = answer.status >= 200 && answer.status <= 299;
    return { statusCode: answer.status, error: ok ? null : `the receiver answered ${answer.status}`, latencyMs: latency(), response: answer.head };
  } catch (err) {
    if (!(err instanceof SiteFetchError)) throw err;
    return { statusCode: null, error: `${err.kind}: ${err.message}`.slice(0, 1000), latencyMs: latency(), response: null };
  }
}

/** Why the webhook is disabled after this attempt, or null. */
function disableReason(outcome: AttemptOutcome, failures: number, failingSince: Date | null, now: Date): string | null {
  if (outcome.statusCode === 410) return 'the receiver answered 410 Gone';
  if (outcome.error === null) return null;
  if (failures >= DISABLE_AFTER_FAILURES) return `${DISABLE_AFTER_FAILURES} attempts in a row failed`;
  if (failingSince && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS) return 'every attempt failed for 3 days';
  return null;
}

/** Fails what a disabled webhook still had pending (their jobs then find nothing to send). */
export async function failPending(db: Executor, webhookId: number, reason: string): Promise<void> {
  await db
    .updateTable('webhookDeliveries')
    .set({ status: 'failed', lastError: `not sent: the webhook is disabled (${reason})`, leaseUntil: null })
    .where('webhookId', '=', webhookId)
    .where('status', '=', 'pending')
    .execute();
}

/** Disables a webhook with its reason, failing what it had pending. */
export async function disableWebhook(db: Executor, webhookId: number, reason: string, now: Date): Promise<void> {
  await db.updateTable('webhooks').set({ enabled: false, disabledReason: reason, updatedAt: now }).where('id', '=', webhookId).execute();
  await failPending(db, webhookId, reason);
}

/**
 * Records an attempt and what follows from it, in one transaction: the
 * attempt row, the delivery's state and next attempt, the webhook's run of
 * failures (and disabling it). Answers the delivery's state and, when it is
 * still pending, how long until its next attempt.
 */
async function record(ctx: AppContext, row: DeliveryRow, outcome: AttemptOutcome, replay: boolean): Promise<{ status: DeliveryStatus; retryInMs: number | null }> {
  const now = ctx.clock.now();
  const ok = outcome.error === null;
  return ctx.db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('webhookDeliveries').select(['status', 'deliveredAt']).where('id', '=', row.id).forUpdate().executeTakeFirst();
    if (!current) return { status: 'failed' as const, retryInMs: null };
    await trx
      .insertInto('webhookAttempts')
      .values({ deliveryId: row.id, replay, attemptedAt: now, statusCode: outcome.statusCode, error: outcome.error, latencyMs: outcome.latencyMs, response: outcome.response })
      .execute();
    let status = current.status;
    let retryInMs: number | null = null;
    if (ok) status = 'delivered';
    else if (!replay && current.status === 'pending') {
      const scheduled = await trx
        .selectFrom('webhookAttempts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('deliveryId', '=', row.id)
        .where('replay', '=', false)
        .executeTakeFirstOrThrow();
      retryInMs = retryDelayMs(ctx.config.webhooks.retryDelaysMs, Number(scheduled.n));
      if (retryInMs === null) status = 'failed';
    }
    await trx
      .updateTable('webhookDeliveries')
      .set((eb) => ({
        attempts: eb('attempts', '+', 1),
        lastStatusCode: outcome.statusCode,
        lastError: outcome.error,
        status,
        ...(status === 'delivered' && current.deliveredAt === null && { deliveredAt: now }),
        ...(retryInMs !== null && { nextAttemptAt: new Date(now.getTime() + retryInMs) }),
        ...(!replay && { leaseUntil: null }),
      }))
      .where('id', '=', row.id)
      .execute();
    const hook = await trx
      .updateTable('webhooks')
      .set(
        ok
          ? { consecutiveFailures: 0, failingSince: null }
          : (eb) => ({ consecutiveFailures: eb('consecutiveFailures', '+', 1), failingSince: sql<Date>`coalesce(failing_since, ${now})` }),
      )
      .where('id', '=', row.webhookId)
      .returning(['consecutiveFailures', 'failingSince', 'enabled'])
      .executeTakeFirst();
    const reason = hook?.enabled ? disableReason(outcome, hook.consecutiveFailures, hook.failingSince, now) : null;
    if (reason) {
      await disableWebhook(trx, row.webhookId, reason, now);
      if (status === 'pending') return { status: 'failed' as const, retryInMs: null };
    }
    return { status, retryInMs };
  });
}

/** Runs one attempt of a delivery (the job's body); `replay` for an attempt a person asked for. */
export async function runDelivery(
  ctx: AppContext,
  deliveryId: number,
  options: { replay?: boolean; fetcher?: SiteFetcher } = {},
): Promise<{ state: DeliveryStatus | 'missing' | 'skipped'; statusCode?: number | null }> {
  const replay = options.replay === true;
  const row = await loadDelivery(ctx, deliveryId);
  if (!row) return { state: 'missing' };
  const now = ctx.clock.now();
  // Time an attempt may take, and then some for recording it: a run holds the delivery and a slot this long at most.
  const holdMs = ctx.config.webhooks.timeoutMs + 2_000;
  if (!replay) {
    if (row.status !== 'pending') return { state: row.status };
    if (!row.enabled) {
      await failPending(ctx.db, row.webhookId, 'disabled since the event');
      return { state: 'failed' };
    }
    const early = row.nextAttemptAt.getTime() - now.getTime();
    // Queued again ahead of its time (the reconciler, a replay of the job): wait for it.
    if (early > 50) throw new RetryLaterError(`delivery ${deliveryId} is due in ${early} ms`, early);
    const leased = await ctx.db
      .updateTable('webhookDeliveries')
      .set({ leaseUntil: new Date(now.getTime() + holdMs) })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .where((eb) => eb.or([eb('leaseUntil', 'is', null), eb('leaseUntil', '<=', now)]))
      .returning('id')
      .executeTakeFirst();
    if (!leased) {
      const wait = row.leaseUntil ? Math.max(500, row.leaseUntil.getTime() - now.getTime()) : 1_000;
      throw new RetryLaterError(`delivery ${deliveryId} is being sent by another run`, wait);
    }
  } else if (!row.enabled) return { state: 'skipped' };

  const slot = await takeSlot(ctx, row.webhookId, holdMs);
  if (!slot) {
    if (!replay) await ctx.db.updateTable('webhookDeliveries').set({ leaseUntil: null }).where('id', '=', deliveryId).execute();
    // Spread out, so the waiting deliveries of a slow receiver do not all come back at once.
    throw new RetryLaterError(`webhook ${row.webhookId} has ${ctx.config.webhooks.maxInFlight} attempts in flight`, 1_000 + Math.round(Math.random() * 2_000));
  }
  let outcome: AttemptOutcome;
  try {
    outcome = await attempt(ctx, row, options.fetcher ?? siteFetcherFor(ctx.config, ctx.logger));
  } finally {
    await slot.release();
  }
  const after = await record(ctx, row, outcome, replay);
  ctx.logger.info({ deliveryId, webhookId: row.webhookId, statusCode: outcome.statusCode, ms: outcome.latencyMs, state: after.status, replay }, 'webhook attempt');
  if (after.retryInMs !== null) throw new RetryLaterError(`delivery ${deliveryId} failed (${outcome.error}); next attempt in ${after.retryInMs} ms`, after.retryInMs);
  return { state: after.status, statusCode: outcome.statusCode };
}
