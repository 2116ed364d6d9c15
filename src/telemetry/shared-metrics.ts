import type { Redis } from 'ioredis';
import type { AppContext } from '../context.ts';
import { METRICS, type MetricSpec } from './metric-catalog.ts';
import { tracingHooks } from './state.ts';

/**
 * Counters and histograms that every worker process adds to, summed in one
 * Redis hash (`{REDIS_PREFIX}:metrics`) so that one scrape of the API's
 * `/metrics` sees the whole deployment's. A process counts in memory (a
 * map increment per event) and adds its counts to the hash once a second
 * in one MULTI; counts that could not be added are kept for the next try.
 * Fields are the series themselves (`[name, labels]` as JSON), from label
 * values the code chooses (queue, job and upstream names, outcomes), so the
 * hash holds a bounded number of them. A Redis that loses its data starts
 * the counters again from zero, which Prometheus reads as a counter reset.
 */

type Labels = Record<string, string>;

const FLUSH_MS = 1_000;

export const sharedMetricsKey = (prefix: string) => `${prefix}:metrics`;

const field = (name: string, labels: Labels) => JSON.stringify([name, labels]);

/** The next flush, started outside whatever trace counted the first event (so no request or job is billed for it). */
const later = (flush: () => void): NodeJS.Timeout => {
  const start = () => setTimeout(flush, FLUSH_MS).unref();
  return tracingHooks()?.detached(start) ?? start();
};

export class MetricsRecorder {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly redis: Redis;
  private readonly key: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.key = sharedMetricsKey(prefix);
  }

  private add(name: string, labels: Labels, delta: number): void {
    const f = field(name, labels);
    this.pending.set(f, (this.pending.get(f) ?? 0) + delta);
    this.timer ??= later(() => {
      this.timer = null;
      void this.flush();
    });
  }

  count(spec: MetricSpec & { type: 'counter' }, labels: Labels, delta = 1): void {
    this.add(spec.name, labels, delta);
  }

  /** One observation: its bucket counts (cumulative, as Prometheus reads them), sum and count. */
  observe(spec: MetricSpec & { type: 'histogram' }, labels: Labels, value: number): void {
    for (const le of spec.buckets ?? []) if (value <= le) this.add(`${spec.name}_bucket`, { ...labels, le: String(le) }, 1);
    this.add(`${spec.name}_bucket`, { ...labels, le: '+Inf' }, 1);
    this.add(`${spec.name}_sum`, labels, value);
    this.add(`${spec.name}_count`, labels, 1);
  }

  /** Adds what was counted to the shared hash; one flush at a time, what fails is kept for the next. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    const batch = this.pending;
    this.pending = new Map();
    const multi = this.redis.multi();
    for (const [f, delta] of batch) multi.hincrbyfloat(this.key, f, delta);
    this.flushing = multi
      .exec()
      .then(
        () => undefined,
        () => {
          for (const [f, delta] of batch) this.pending.set(f, (this.pending.get(f) ?? 0) + delta);
          this.timer ??= later(() => {
            this.timer = null;
            void this.flush();
          });
        },
      )
      .finally(() => (this.flushing = null));
    return this.flushing;
  }

  /** The last flush, as a process stops. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushing;
    await this.flush();
  }
}

const recorders = new WeakMap<AppContext['redis'], MetricsRecorder>();

/** The process's recorder for this deployment (one per Redis connection, as the queues and the provider gate). */
export function recorderFor(ctx: Pick<AppContext, 'redis' | 'config'>): MetricsRecorder {
  let recorder = recorders.get(ctx.redis);
  if (!recorder) recorders.set(ctx.redis, (recorder = new MetricsRecorder(ctx.redis, ctx.config.redisPrefix)));
  return recorder;
}

/** Flushes and forgets the recorder of a connection about to close. */
export async function closeRecorder(ctx: Pick<AppContext, 'redis'>): Promise<void> {
  const recorder = recorders.get(ctx.redis);
  recorders.delete(ctx.redis);
  await recorder?.close();
}

export interface SharedSeries {
  /** The series' own name (`sightline_job_duration_seconds_bucket`) and labels. */
  name: string;
  labels: Labels;
  value: number;
}

const WORKER_METRICS = Object.values(METRICS).filter((m) => m.source === 'workers');
const SUFFIXES = ['_bucket', '_sum', '_count'];

/** The catalog entry a stored series belongs to (a histogram's `_bucket`, `_sum` and `_count` belong to it). */
export function specOf(seriesName: string): MetricSpec | undefined {
  return WORKER_METRICS.find((m) => m.name === seriesName || (m.type === 'histogram' && SUFFIXES.some((s) => seriesName === `${m.name}${s}`)));
}

/** Every worker's counts as they stand in the shared hash; fields of metrics no longer in the catalog are skipped. */
export async function readSharedMetrics(redis: Redis, prefix: string): Promise<SharedSeries[]> {
  const hash = await redis.hgetall(sharedMetricsKey(prefix));
  const series: SharedSeries[] = [];
  for (const [f, raw] of Object.entries(hash)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(f);
    } catch {
      continue;
    }
    if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || !parsed[1] || typeof parsed[1] !== 'object') continue;
    const value = Number(raw);
    if (!specOf(parsed[0]) || !Number.isFinite(value)) continue;
    series.push({ name: parsed[0], labels: parsed[1] as Labels, value });
  }
  return series;
}
