import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { REQUEST_DURATION_BUCKETS } from '../../src/http/prometheus.ts';
import { registerRequestMetrics } from '../../src/http/request-metrics.ts';

/** prom-client's own Counter and Histogram, as the server counted requests before. */
function promClient() {
  const registry = new Registry();
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames,
    buckets: [...REQUEST_DURATION_BUCKETS],
    registers: [registry],
  });
  return {
    registry,
    observe(method: string, route: string, status: number, seconds: number) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      duration.observe(labels, seconds);
    },
  };
}

function ours() {
  const registry = new Registry();
  return { registry, ...registerRequestMetrics(registry, REQUEST_DURATION_BUCKETS) };
}

const observations: [string, string, number, number][] = [
  ['GET', '/whoami', 200, 0.0004],
  ['GET', '/whoami', 200, 0.003],
  ['POST', '/projects/:id/scans', 202, 0.02],
  ['GET', '/whoami', 401, 0.001],
  ['GET', 'unmatched', 404, 0.1 + 0.2],
  ['GET', '/whoami', 200, 12],
  ['GET', '/projects/:id/report', 200, 5],
  ['DELETE', '/projects/:id/report', 405, 0.0011],
  ['GET', '/whoami', 200, 0.0099999],
  ['GET', '/a "quoted" \\ route\n', 500, 2.5],
];

describe('request metrics', () => {
  it('read in /metrics text exactly as prom-client Counter and Histogram', async () => {
    const [a, b] = [promClient(), ours()];
    expect(await b.registry.metrics()).toBe(await a.registry.metrics());
    for (const o of observations) {
      a.observe(...o);
      b.observe(...o);
    }
    const text = await b.registry.metrics();
    expect(text).toBe(await a.registry.metrics());
    expect(text).toContain(
      'http_request_duration_seconds_bucket{le="0.005",method="GET",route="/whoami",status="200"} 2',
    );
    expect(text).toContain('http_requests_total{method="GET",route="/whoami",status="200"} 4');
  });

  it('read as JSON and as OpenMetrics as prom-client does, and reset with the registry', async () => {
    const [a, b] = [promClient(), ours()];
    for (const o of observations) {
      a.observe(...o);
      b.observe(...o);
    }
    const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON())) as unknown;
    expect(await json(b.registry)).toEqual(await json(a.registry));
    // Registry's declared type takes only its default content type; the class takes either.
    const openMetrics = Registry.OPENMETRICS_CONTENT_TYPE as unknown as typeof Registry.PROMETHEUS_CONTENT_TYPE;
    a.registry.setContentType(openMetrics);
    b.registry.setContentType(openMetrics);
    expect(await b.registry.metrics()).toBe(await a.registry.metrics());
    a.registry.resetMetrics();
    b.registry.resetMetrics();
    b.observe('GET', '/whoami', 200, 0.2);
    a.observe('GET', '/whoami', 200, 0.2);
    expect(await b.registry.metrics()).toBe(await a.registry.metrics());
  });
});
