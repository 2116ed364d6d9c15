import type { Registry } from 'prom-client';

/**
 * `http_requests_total` and `http_request_duration_seconds`, counted for
 * every request. prom-client's Counter and Histogram validate and hash the
 * label object on every call, a measurable share of a request (bench/http);
 * here a request finds its entry through three map look-ups and adds to
 * plain numbers. The registry still writes the text: each metric hands it
 * the values prom-client's own Counter and Histogram would (the same names,
 * label order, cumulative buckets, `+Inf`, `_sum`, `_count`; a test
 * compares the two outputs), so /metrics reads exactly as before.
 */

type Labels = { method: string; route: string; status: string };

interface Entry {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative), by upper bound. */
  perBucket: number[];
}

/** A value as prom-client's registry reads it from a metric. */
interface MetricValue {
  labels: Record<string, string | number>;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
  /** prom-client gives buckets a null exemplar (none recorded), and sums and counts none. */
  exemplar?: null;
}

interface MetricData {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: MetricValue[];
  aggregator: 'sum';
}

/** What prom-client's Registry asks of a metric (registerMetric, metrics, getMetricsAsJSON, resetMetrics). */
interface RegistryMetric {
  name: string;
  help: string;
  type: string;
  aggregator: 'sum';
  get(): Promise<MetricData>;
  getForPromString(): Promise<MetricData>;
  reset(): void;
}

export interface RequestMetrics {
  observe(method: string, route: string, status: number, seconds: number): void;
}

export function registerRequestMetrics(registry: Registry, buckets: readonly number[]): RequestMetrics {
  const upperBounds = [...buckets].sort((a, b) => a - b);
  /** By route, then status, then method: all three come from small sets, so no key is built per request. */
  let entries = new Map<string, Map<number, Map<string, Entry>>>();
  /** In first-observed order, the order prom-client lists label sets in. */
  let ordered: Entry[] = [];

  function entryOf(method: string, route: string, status: number): Entry {
    let byStatus = entries.get(route);
    if (!byStatus) entries.set(route, (byStatus = new Map()));
    let byMethod = byStatus.get(status);
    if (!byMethod) byStatus.set(status, (byMethod = new Map()));
    let entry = byMethod.get(method);
    if (!entry) {
      entry = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        perBucket: upperBounds.map(() => 0),
      };
      byMethod.set(method, entry);
      ordered.push(entry);
    }
    return entry;
  }

  const reset = () => {
    entries = new Map();
    ordered = [];
  };

  const requests: RegistryMetric = {
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    type: 'counter',
    aggregator: 'sum',
    getForPromString: () => Promise.resolve(counterData()),
    get: () => Promise.resolve(counterData()),
    reset,
  };
  const counterData = (): MetricData => ({
    ...requests,
    type: 'counter',
    values: ordered.map((e) => ({ labels: e.labels, value: e.count })),
  });

  const duration: RegistryMetric = {
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    type: 'histogram',
    aggregator: 'sum',
    getForPromString: () => Promise.resolve(histogramData(false)),
    get: () => Promise.resolve(histogramData(true)),
    reset,
  };
  /** As prom-client's Histogram: per label set, cumulative buckets, then +Inf, _sum and _count; `get` merges the labels into each value ("splayed"). */
  function histogramData(splayed: boolean): MetricData {
    const values: MetricValue[] = [];
    const value = (
      le: Record<string, string | number>,
      v: number,
      metricName: string,
      labels: Labels,
      exemplar?: null,
    ): MetricValue =>
      splayed
        ? { labels: { ...le, ...labels }, value: v, metricName, exemplar }
        : { labels: le, sharedLabels: labels, value: v, metricName, exemplar };
    for (const e of ordered) {
      let acc = 0;
      for (let i = 0; i < upperBounds.length; i++) {
        acc += e.perBucket[i]!;
        values.push(value({ le: upperBounds[i]! }, acc, `${duration.name}_bucket`, e.labels, null));
      }
      values.push(value({ le: '+Inf' }, e.count, `${duration.name}_bucket`, e.labels, null));
      values.push(value({}, e.sum, `${duration.name}_sum`, e.labels));
      values.push(value({}, e.count, `${duration.name}_count`, e.labels));
    }
    return { ...duration, type: 'histogram', values };
  }

  // The registry only reads these members; its declared type is prom-client's Metric class.
  registry.registerMetric(requests as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(duration as unknown as Parameters<Registry['registerMetric']>[0]);

  return {
    observe(method, route, status, seconds) {
      const entry = entryOf(method, route, status);
      entry.count += 1;
      entry.sum += seconds;
      for (let i = 0; i < upperBounds.length; i++) {
        if (seconds <= upperBounds[i]!) {
          entry.perBucket[i]! += 1;
          break;
        }
      }
    },
  };
}
