import type { Redis } from 'ioredis';
import { METRICS, type MetricSpec } from './metric-catalog.ts';
import { tracingHooks } from './tracing-hooks.ts';

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

/** A series counted in memory since the last flush: a counter's increase, or a histogram's bucket counts (not cumulative), sum and count. */
interface Pending {
  spec: MetricSpec;
  labels: Labels;
  value: number;
  buckets: number[];
  count: number;
}

export class MetricsRecorder {
  /** Keyed by the metric's name and label values: an event costs a string join and a map look-up, fields are made at flush. */
  private pending = new Map<string, Pending>();
  /** Field increments a failed flush could not add, for the next one. */
  private unsent = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;
  private readonly redis: Redis;
  private readonly key: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.key = sharedMetricsKey(prefix);
  }

  private series(spec: MetricSpec, labels: Labels): Pending {
    const id = `${spec.name}\u0000${Object.values(labels).join('\u0000')}`;
    let p = this.pending.get(id);
    if (!p)
      this.pending.set(
        id,
        (p = { spec, labels, value: 0, buckets: new Array<number>((spec.buckets?.length ?? 0) + 1).fill(0), count: 0 }),
      );
    this.timer ??= later(() => {
      this.timer = null;
      void this.flush();
    });
    return p;
  }

  count(spec: MetricSpec & { type: 'counter' }, labels: Labels, delta = 1): void {
    this.series(spec, labels).value += delta;
  }

  /** One observation: the first bucket it fits (the last is +Inf), the sum and the count. */
  observe(spec: MetricSpec & { type: 'histogram' }, labels: Labels, value: number): void {
    const p = this.series(spec, labels);
    const bounds = spec.buckets ?? [];
    let i = 0;
    while (i < bounds.length && value > (bounds[i] as number)) i++;
    p.buckets[i] = (p.buckets[i] ?? 0) + 1;
    p.value += value;
    p.count += 1;
  }

  /** What was counted as increments of the hash's fields; a histogram's buckets cumulative, as Prometheus reads them. */
  private fields(): Map<string, number> {
    const out = this.unsent;
    this.unsent = new Map();
    // A histogram's every bucket is written, zero or not, so each of its series has the same buckets from the first flush on.
    const add = (name: string, labels: Labels, delta: number, always = false) => {
      if (delta === 0 && !always) return;
      const f = field(name, labels);
      out.set(f, (out.get(f) ?? 0) + delta);
    };
    for (const p of this.pending.values()) {
      if (p.spec.type !== 'histogram') {
        add(p.spec.name, p.labels, p.value);
        continue;
      }
      const bounds = p.spec.buckets ?? [];
      let cumulative = 0;
      p.buckets.forEach((n, i) => {
        cumulative += n;
        add(
          `${p.spec.name}_bucket`,
          { ...p.labels, le: i < bounds.length ? String(bounds[i]) : '+Inf' },
          cumulative,
          true,
        );
      });
      add(`${p.spec.name}_sum`, p.labels, p.value, true);
      add(`${p.spec.name}_count`, p.labels, p.count, true);
    }
    this.pending = new Map();
    return out;
  }

  /** Adds what was counted to the shared hash; one flush at a time, what fails is kept for the next. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0 && this.unsent.size === 0) return Promise.resolve();
    const batch = this.fields();
    if (batch.size === 0) return Promise.resolve();
    const multi = this.redis.multi();
    for (const [f, delta] of batch) multi.hincrbyfloat(this.key, f, delta);
    this.flushing = multi
      .exec()
      .then(
        () => undefined,
        () => {
          for (const [f, delta] of batch) this.unsent.set(f, (this.unsent.get(f) ?? 0) + delta);
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
  return WORKER_METRICS.find(
    (m) => m.name === seriesName || (m.type === 'histogram' && SUFFIXES.some((s) => seriesName === `${m.name}${s}`)),
  );
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
    if (!Array.isArray(parsed) || typeof parsed[0] !== 'string' || !parsed[1] || typeof parsed[1] !== 'object')
      continue;
    const value = Number(raw);
    if (!specOf(parsed[0]) || !Number.isFinite(value)) continue;
    series.push({ name: parsed[0], labels: parsed[1] as Labels, value });
  }
  return series;
}
