import type { Metric, Registry } from 'prom-client';
import type { AppContext } from '../context.ts';
import {
  liveWorkers,
  upstreamGateState,
  queueStates,
  scanAndMoneyState,
  QUEUE_STATES,
} from '../domain/system/index.ts';
import { ACTIVE_SCAN_STATUSES } from '../domain/common/index.ts';
import { METRICS, type MetricSpec } from './metric-catalog.ts';
import { readSharedMetrics, specOf, type SharedSeries } from './shared-metrics.ts';

/**
 * The operator's metrics in the API's Prometheus registry (catalog:
 * ./metric-catalog.ts). `/metrics` is public and may be scraped by anyone
 * as often as they like, so what it reads from Redis and Postgres is read
 * at most once per `CACHE_MS` per process, by one read that concurrent
 * scrapes share, each source within `READ_TIMEOUT_MS`; a source that fails
 * or is slow drops its series and says so in `sightline_operator_metrics_up`.
 */

const CACHE_MS = 5_000;
const READ_TIMEOUT_MS = 2_000;

type Value = { labels: Record<string, string>; value: number; metricName?: string };

interface Snapshot {
  queues: Awaited<ReturnType<typeof queueStates>> | null;
  workers: Awaited<ReturnType<typeof liveWorkers>> | null;
  database: Awaited<ReturnType<typeof scanAndMoneyState>> | null;
  gate: Awaited<ReturnType<typeof upstreamGateState>> | null;
  shared: SharedSeries[] | null;
  at: Date;
}

function within<T>(work: () => Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), READ_TIMEOUT_MS);
  });
  return Promise.race([work().catch(() => null), timeout]).finally(() => clearTimeout(timer));
}

async function readSnapshot(ctx: AppContext): Promise<Snapshot> {
  const [queues, workers, database, gate, shared] = await Promise.all([
    within(() => queueStates(ctx)),
    within(() => liveWorkers(ctx)),
    within(() => scanAndMoneyState(ctx)),
    within(() => upstreamGateState(ctx)),
    within(() => readSharedMetrics(ctx.redis, ctx.config.redisPrefix)),
  ]);
  return { queues, workers, database, gate, shared, at: ctx.clock.now() };
}

/** The values of one metric of the catalog in a snapshot. */
export function valuesOf(spec: MetricSpec, s: Snapshot): Value[] {
  switch (spec.name) {
    case METRICS.queueJobs.name:
      return (s.queues ?? []).flatMap((q) =>
        QUEUE_STATES.map((state) => ({ labels: { queue: q.queue, state }, value: q.counts[state] })),
      );
    case METRICS.queueWorkers.name:
      return Object.entries(s.workers ?? {}).map(([queue, value]) => ({ labels: { queue }, value }));
    case METRICS.scans.name:
      return s.database
        ? ACTIVE_SCAN_STATUSES.map((status) => ({ labels: { status }, value: s.database?.scans[status] ?? 0 }))
        : [];
    case METRICS.oldestRunningScan.name: {
      if (!s.database) return [];
      const started = s.database.oldestRunningStartedAt;
      return [{ labels: {}, value: started ? Math.max(0, (s.at.getTime() - started.getTime()) / 1000) : 0 }];
    }
    case METRICS.moneyReserved.name:
      return s.database ? [{ labels: {}, value: s.database.reservedMicros }] : [];
    case METRICS.moneySettled.name:
      return s.database ? [{ labels: {}, value: s.database.settledMicros }] : [];
    case METRICS.upstreamInFlight.name:
      return Object.entries(s.gate ?? {}).map(([upstream, g]) => ({ labels: { upstream }, value: g.inFlight }));
    case METRICS.upstreamRate.name:
      return Object.entries(s.gate ?? {}).flatMap(([upstream, g]) =>
        g.rpm === null ? [] : [{ labels: { upstream }, value: g.rpm }],
      );
    case METRICS.collectOk.name:
      return (['queues', 'workers', 'database', 'gate', 'shared'] as const).map((source) => ({
        labels: { source },
        value: s[source] === null ? 0 : 1,
      }));
    default: {
      // Counted by the workers: the stored series of this metric (a histogram's _bucket, _sum and _count).
      const own = (s.shared ?? []).filter((x) => specOf(x.name) === spec);
      return own.map((x) => ({
        labels: x.labels,
        value: x.value,
        ...(x.name !== spec.name && { metricName: x.name }),
      }));
    }
  }
}

/** Adds every metric of the catalog to the registry, read from a snapshot shared by concurrent scrapes. */
export function registerOperatorMetrics(registry: Registry, ctx: AppContext): void {
  let cached: { at: number; snapshot: Promise<Snapshot> } | null = null;
  const snapshot = () => {
    if (!cached || Date.now() - cached.at >= CACHE_MS) cached = { at: Date.now(), snapshot: readSnapshot(ctx) };
    return cached.snapshot;
  };
  for (const spec of Object.values(METRICS)) {
    const metric = {
      name: spec.name,
      help: spec.help,
      type: spec.type,
      aggregator: 'sum',
      get: async () => ({
        name: spec.name,
        help: spec.help,
        type: spec.type,
        aggregator: 'sum',
        values: valuesOf(spec, await snapshot()),
      }),
      reset: () => undefined,
    };
    // prom-client's registry takes any object with its metrics' shape (name, help, type, get); its types name only its own classes.
    registry.registerMetric(metric as unknown as Metric);
  }
}
