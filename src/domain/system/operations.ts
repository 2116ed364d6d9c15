import { sql } from 'kysely';
import type { ACTIVE_SCAN_STATUSES } from '../common/index.ts';
import { readGateState, resolveLimits } from '../../assistants/upstream-gate.ts';
import type { UpstreamKey } from '../../assistants/types.ts';
import type { AppContext } from '../../context.ts';

/**
 * System: what an operator watches, read on demand (the API's /metrics,
 * `sightline doctor`). Each read is bounded: a few Redis round trips, one
 * SQL statement over indexed or small tables.
 */

/** The job states a queue's counts are read for (BullMQ 6 keeps paused jobs as waiting). */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized', 'waiting-children'] as const;
export type QueueJobState = (typeof QUEUE_STATES)[number];

export interface QueueState {
  queue: string;
  counts: Record<QueueJobState, number>;
}

/** Jobs per state of every queue of the catalog. */
export async function queueStates(ctx: AppContext): Promise<QueueState[]> {
  return Promise.all(
    (await ctx.jobs.queueNames()).map(async (queue) => {
      const counts = await ctx.jobs.queue(queue).getJobCounts(...QUEUE_STATES);
      return {
        queue,
        counts: Object.fromEntries(QUEUE_STATES.map((s) => [s, counts[s] ?? 0])) as Record<QueueJobState, number>,
      };
    }),
  );
}

/**
 * Worker processes serving each queue now: BullMQ names every worker's Redis
 * connection after its queue (a `CLIENT LIST` per queue). A Redis that
 * refuses CLIENT LIST (some managed services) makes this fail.
 */
export async function liveWorkers(ctx: AppContext): Promise<Record<string, number>> {
  const counts = await Promise.all(
    (await ctx.jobs.queueNames()).map(async (queue) => [queue, await ctx.jobs.queue(queue).getWorkersCount()] as const),
  );
  return Object.fromEntries(counts);
}

export interface ScanAndMoneyState {
  scans: Record<(typeof ACTIVE_SCAN_STATUSES)[number], number>;
  oldestRunningStartedAt: Date | null;
  /** Held for calls in flight, every workspace. */
  reservedMicros: number;
  /** Charged for stored answers, every site and month. */
  settledMicros: number;
}

/**
 * Scans not yet ended by status and the oldest running one (the partial
 * index of active scans serves both), and money held and charged (one row
 * per workspace; one per site and month).
 */
export async function scanAndMoneyState(ctx: AppContext): Promise<ScanAndMoneyState> {
  const { rows } = await sql<{
    queued: number;
    running: number;
    cancelling: number;
    oldest: Date | null;
    reserved: number;
    settled: number;
  }>`
    SELECT
      count(*) FILTER (WHERE s.status = 'queued')::int AS queued,
      count(*) FILTER (WHERE s.status = 'running')::int AS running,
      count(*) FILTER (WHERE s.status = 'cancelling')::int AS cancelling,
      min(s.started_at) FILTER (WHERE s.status = 'running') AS oldest,
      (SELECT coalesce(sum(reserved_micros), 0) FROM orgs)::bigint AS reserved,
      (SELECT coalesce(sum(spent_micros), 0) FROM site_spend)::bigint AS settled
    FROM scans s
    WHERE s.status IN ('queued', 'running', 'cancelling')`.execute(ctx.db);
  const row = rows[0];
  return {
    scans: { queued: row?.queued ?? 0, running: row?.running ?? 0, cancelling: row?.cancelling ?? 0 },
    oldestRunningStartedAt: row?.oldest ?? null,
    reservedMicros: Number(row?.reserved ?? 0),
    settledMicros: Number(row?.settled ?? 0),
  };
}

/** Each provider account's calls in flight across every worker, and the rate the gate sends at now (null: unlimited). */
export async function upstreamGateState(
  ctx: AppContext,
): Promise<Record<UpstreamKey, { inFlight: number; rpm: number | null }>> {
  return readGateState(ctx.redis, ctx.config.redisPrefix, resolveLimits(ctx.config));
}
