import { Registry, collectDefaultMetrics } from 'prom-client';
import { registerRequestMetrics } from './request-metrics.ts';

/** Bounds of http_request_duration_seconds, in seconds. */
export const REQUEST_DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One registry per server, so several servers in one test process never collide. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = registerRequestMetrics(registry, REQUEST_DURATION_BUCKETS);
  return {
    registry,
    observe: requests.observe,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
