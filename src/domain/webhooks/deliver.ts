import { performance } from 'node:perf_hooks';
import type { AppContext } from '../../context.ts';
import { preparedQuery, type Executor } from '../../db/database.ts';
import type { DeliveryStatus, WebhookFormat } from '../../db/schema.ts';
import { Later } from '../common/index.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import type { WebhookPoster } from '../../web/webhook-post.ts';
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
export function deliveryBody(
  format: WebhookFormat,
  event: { type: string; data: Record<string, unknown>; createdAt: Date },
): string {
  if (format === 'slack')
    return JSON.stringify(slackMessage({ type: event.type, data: event.data } as Parameters<typeof slackMessage>[0]));
  return JSON.stringify({ type: event.type as EventType, timestamp: event.createdAt.toISOString(), data: event.data });
}

/** The secrets a delivery is signed with now: the current one, and the previous one until it lapses. */
function secretsOf(
  row: Pick<DeliveryRow, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
  now: Date,
): string[] {
  return row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt > now
    ? [row.secret, row.previousSecret]
    : [row.secret];
}

async function attempt(ctx: AppContext, row: DeliveryRow, poster: WebhookPoster): Promise<AttemptOutcome> {
  let body: string;
  try {
    body = deliveryBody(row.format, row);
  } catch (err) {
    // A stored event this code cannot render (written by another version) fails its attempts like a refusal,
    // rather than failing the job for ever.
    ctx.logger.error({ err, deliveryId: row.id, type: row.type }, 'webhook body could not be built');
    return {
      statusCode: null,
      error: `internal: the ${row.type} event could not be rendered`,
      latencyMs: 0,
      response: null,
    };
  }
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT(ctx.config.siteFetch.contactUrl),
    ...signedHeaders(secretsOf(row, ctx.clock.now()), row.uid, ctx.clock.now(), body),
  };
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const answer = await poster.post(row.url, body, headers, {
      timeoutMs: ctx.config.webhooks.timeoutMs,
      connectTimeoutMs: Math.min(ctx.config.siteFetch.connectTimeoutMs, ctx.config.webhooks.timeoutMs),
      keepBytes: KEEP_ANSWER_BYTES,
    });
    const ok = answer.status >= 200 && answer.status <= 299;
    return {
      statusCode: answer.status,
      error: ok ? null : `the receiver answered ${answer.status}`,
      latencyMs: latency(),
      response: answer.head,
    };
  } catch (err) {
    if (!(err instanceof SiteFetchError)) throw err;
    return {
      statusCode: null,
      error: `${err.kind}: ${err.message}`.slice(0, 1000),
      latencyMs: latency(),
      response: null,
    };
  }
}

/** Why the webhook is disabled after this attempt, or null. */
function disableReason(outcome: AttemptOutcome, failures: number, failingSince: Date | null, now: Date): string | null {
  if (outcome.statusCode === 410) return 'the receiver answered 410 Gone';
  if (outcome.error === null) return null;
  if (failures >= DISABLE_AFTER_FAILURES) return `${DISABLE_AFTER_FAILURES} attempts in a row failed`;
  if (failingSince && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_MS)
    return 'every attempt failed for 3 days';
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
  await db
    .updateTable('webhooks')
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where('id', '=', webhookId)
    .execute();
  await failPending(db, webhookId, reason);
}

/**
 * Takes a pending, due, enabled delivery that no run holds, and reads what
 * sending it needs, in one statement (a delivery costs two round trips to
 * Postgres: this and `record`). Null when it is not to be sent now; the
 * caller then reads why.
 */
const LEASE_SQL = `
  UPDATE webhook_deliveries d SET lease_until = $2
    FROM webhooks w, webhook_events e
   WHERE d.id = $1 AND w.id = d.webhook_id AND e.id = d.event_id
     AND d.status = 'pending' AND w.enabled AND d.next_attempt_at <= $3 AND (d.lease_until IS NULL OR d.lease_until <= $4)
  RETURNING d.id, d.status, d.next_attempt_at AS "nextAttemptAt", d.lease_until AS "leaseUntil", d.delivered_at AS "deliveredAt", d.webhook_id AS "webhookId",
            w.url, w.format, w.enabled, w.secret, w.previous_secret AS "previousSecret", w.previous_secret_expires_at AS "previousSecretExpiresAt",
            e.uid, e.type, e.data, e.created_at AS "createdAt",
            (SELECT count(*) FROM webhook_attempts a WHERE a.delivery_id = d.id AND NOT a.replay)::int AS scheduled`;

/**
 * Records an attempt and what follows from it, in one statement: the
 * attempt row, the delivery's state and next attempt, and the webhook's run
 * of failures (its row is written only when that changes, so deliveries to
 * one busy webhook do not queue on it).
 */
const RECORD_SQL = `
  WITH attempt AS (
    INSERT INTO webhook_attempts (delivery_id, replay, attempted_at, status_code, error, latency_ms, response) VALUES ($1, $2, $3, $4, $5, $6, $7)
  ), delivery AS (
    UPDATE webhook_deliveries
       SET attempts = attempts + 1, last_status_code = $4, last_error = $5,
           status = CASE WHEN $5::text IS NULL THEN 'delivered' WHEN $2 THEN status ELSE $8 END,
           delivered_at = CASE WHEN $5::text IS NULL THEN coalesce(delivered_at, $3) ELSE delivered_at END,
           next_attempt_at = coalesce($9, next_attempt_at),
           lease_until = CASE WHEN $2 THEN lease_until ELSE NULL END
     WHERE id = $1
    RETURNING status
  ), hook AS (
    UPDATE webhooks
       SET consecutive_failures = CASE WHEN $5::text IS NULL THEN 0 ELSE consecutive_failures + 1 END,
           failing_since = CASE WHEN $5::text IS NULL THEN NULL ELSE coalesce(failing_since, $3) END
     WHERE id = $10 AND ($5::text IS NOT NULL OR consecutive_failures <> 0 OR failing_since IS NOT NULL)
    RETURNING consecutive_failures, failing_since, enabled
  )
  SELECT d.status, h.consecutive_failures AS failures, h.failing_since AS "failingSince", h.enabled FROM delivery d LEFT JOIN hook h ON true`;

interface Recorded {
  status: DeliveryStatus;
  failures: number | null;
  failingSince: Date | null;
  enabled: boolean | null;
}

/** Answers the delivery's state and, when it is still pending, how long until its next attempt. */
async function record(
  ctx: AppContext,
  row: DeliveryRow,
  outcome: AttemptOutcome,
  replay: boolean,
  scheduled: number,
): Promise<{ status: DeliveryStatus | 'missing'; retryInMs: number | null }> {
  const now = ctx.clock.now();
  const ok = outcome.error === null;
  // The attempt just made counts: the schedule's next delay, or none left.
  const retryInMs = ok || replay ? null : retryDelayMs(ctx.config.webhooks.retryDelaysMs, scheduled + 1);
  const next = retryInMs === null ? null : new Date(now.getTime() + retryInMs);
  let rows: Recorded[];
  try {
    rows = await preparedQuery<Recorded>(ctx.db, 'webhook-record', RECORD_SQL, [
      row.id,
      replay,
      now,
      outcome.statusCode,
      outcome.error,
      outcome.latencyMs,
      outcome.response,
      retryInMs === null ? 'failed' : 'pending',
      next,
      row.webhookId,
    ]);
  } catch (err) {
    // The webhook was deleted while its delivery was in flight: nothing is left to record.
    if ((err as { code?: string }).code === '23503') return { status: 'missing', retryInMs: null };
    throw err;
  }
  const r = rows[0];
  if (!r) return { status: 'missing', retryInMs: null };
  const reason = r.enabled ? disableReason(outcome, r.failures ?? 0, r.failingSince, now) : null;
  if (reason) {
    await ctx.db.transaction().execute((trx) => disableWebhook(trx, row.webhookId, reason, now));
    return { status: r.status === 'pending' ? 'failed' : r.status, retryInMs: null };
  }
  return { status: r.status, retryInMs: r.status === 'pending' ? retryInMs : null };
}

/** Why a delivery could not be taken: finished, disabled, early or held by another run. */
async function notTaken(
  ctx: AppContext,
  deliveryId: number,
  now: Date,
): Promise<{ state: DeliveryStatus | 'missing' } | Later> {
  const row = await loadDelivery(ctx, deliveryId);
  if (!row) return { state: 'missing' };
  if (row.status !== 'pending') return { state: row.status };
  if (!row.enabled) {
    await failPending(ctx.db, row.webhookId, 'disabled since the event');
    return { state: 'failed' };
  }
  const early = row.nextAttemptAt.getTime() - now.getTime();
  // Queued again ahead of its time (the reconciler, a re-queued job): wait for it.
  if (early > 0) return new Later(`delivery ${deliveryId} is due in ${early} ms`, early);
  const held = row.leaseUntil ? row.leaseUntil.getTime() - now.getTime() : 0;
  return new Later(`delivery ${deliveryId} is being sent by another run`, Math.max(500, held));
}

/** Runs one attempt of a delivery (the job's body); `replay` for an attempt a person asked for. A `Later` when the next attempt is due later. */
export async function runWebhookDelivery(
  ctx: AppContext,
  deliveryId: number,
  options: { replay?: boolean; poster?: WebhookPoster } = {},
): Promise<{ state: DeliveryStatus | 'missing' | 'skipped'; statusCode?: number | null } | Later> {
  const replay = options.replay === true;
  const now = ctx.clock.now();
  // Time an attempt may take, and then some for recording it: a run holds the delivery and a slot this long at most.
  const holdMs = ctx.config.webhooks.timeoutMs + 2_000;
  let row: DeliveryRow;
  let scheduled = 0;
  if (replay) {
    const found = await loadDelivery(ctx, deliveryId);
    if (!found) return { state: 'missing' };
    if (!found.enabled) return { state: 'skipped' };
    row = found;
  } else {
    // Due within 50 ms counts as due: the job's delay and the clock may differ by that much.
    const [taken] = await preparedQuery<DeliveryRow & { scheduled: number }>(ctx.db, 'webhook-lease', LEASE_SQL, [
      deliveryId,
      new Date(now.getTime() + holdMs),
      new Date(now.getTime() + 50),
      now,
    ]);
    if (!taken) return notTaken(ctx, deliveryId, now);
    row = taken;
    scheduled = taken.scheduled;
  }

  const slot = await takeSlot(ctx, row.webhookId, holdMs);
  if (!slot) {
    if (!replay)
      await ctx.db.updateTable('webhookDeliveries').set({ leaseUntil: null }).where('id', '=', deliveryId).execute();
    // Spread out, so the waiting deliveries of a slow receiver do not all come back at once.
    return new Later(
      `webhook ${row.webhookId} has ${ctx.config.webhooks.maxInFlight} attempts in flight`,
      1_000 + Math.round(Math.random() * 2_000),
    );
  }
  let outcome: AttemptOutcome;
  try {
    outcome = await attempt(ctx, row, options.poster ?? (await ctx.webhookPoster()));
  } finally {
    await slot.release();
  }
  const after = await record(ctx, row, outcome, replay, scheduled);
  const log = {
    deliveryId,
    webhookId: row.webhookId,
    statusCode: outcome.statusCode,
    ms: outcome.latencyMs,
    state: after.status,
    replay,
  };
  if (outcome.error === null) ctx.logger.debug(log, 'webhook delivered');
  else ctx.logger.info({ ...log, error: outcome.error }, 'webhook attempt failed');
  if (after.retryInMs !== null)
    return new Later(
      `delivery ${deliveryId} failed (${outcome.error}); next attempt in ${after.retryInMs} ms`,
      after.retryInMs,
    );
  return { state: after.status, statusCode: outcome.statusCode };
}
