import type { Telemetry } from 'bullmq';

/**
 * What the rest of the code asks of tracing. `startTracing` sets it once,
 * when the OTEL_* variables turn tracing on (src/telemetry/tracing.ts);
 * otherwise it stays null, so each place that could trace costs one null
 * check and no OpenTelemetry module is ever loaded. Process-wide, as the
 * OpenTelemetry SDK itself is (one tracer provider per process).
 */
export interface TracingHooks {
  /** bullmq-otel: an enqueue records where it came from, and the job's run continues that trace in the worker. */
  bullmq: Telemetry;
  /** `trace_id` and `span_id` of the active span (none outside a span), added to every log line. */
  logFields(): Record<string, string>;
  /** Names the request's span after its route template (`POST /projects/:id/scans`), never the path as sent. */
  nameRequest(routePath: string): void;
  /** Runs `fn` outside any trace: timers it starts (a periodic flush) never join the trace that happened to start them. */
  detached<T>(fn: () => T): T;
  /** Exports the spans still buffered; run as the process stops. */
  shutdown(): Promise<void>;
}

let hooks: TracingHooks | null = null;

export function tracingHooks(): TracingHooks | null {
  return hooks;
}

export function setTracingHooks(next: TracingHooks | null): void {
  hooks = next;
}
