import { createRequire } from 'node:module';
import type { Config } from '../config.ts';
import { atLastStop } from '../shutdown.ts';
import { hasSecretParam, redactQuery, redactUrl } from './redact.ts';
import { setTracingHooks, tracingHooks, type TracingHooks } from './tracing-hooks.ts';

/**
 * OpenTelemetry traces for the API and the workers, with the official SDK,
 * configured by the standard OTEL_* variables (endpoint, protocol, sampler,
 * service name, resource attributes). Off unless an OTLP endpoint or a
 * traces exporter is set (config.tracing.enabled): then nothing here is
 * loaded, and every hook in the code stays one null check.
 *
 * Must run before `pg` and `ioredis` are first loaded: their
 * instrumentations patch the modules as they load (the CLI starts tracing
 * before it imports the API or the worker).
 *
 * What a trace holds: the HTTP request, named after its route template;
 * each enqueue and the job run it leads to (bullmq-otel carries the context
 * in the job), so a scan's job continues its request's trace; the assistant
 * calls (undici) and customer-site fetches (node:http) with every query
 * value redacted; Postgres statements (SQL text, never parameters) and Redis
 * commands made inside a traced request or job.
 */
export async function startTracing(config: Config, role: 'api' | 'worker'): Promise<TracingHooks | null> {
  if (!config.tracing.enabled) return null;
  const running = tracingHooks();
  if (running) return running;
  const [
    { NodeSDK },
    { HttpInstrumentation },
    { UndiciInstrumentation },
    { PgInstrumentation },
    { IORedisInstrumentation },
    api,
    core,
    { BullMQOtel },
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-undici'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/instrumentation-ioredis'),
    import('@opentelemetry/api'),
    import('@opentelemetry/core'),
    import('bullmq-otel'),
  ]);
  const sdk = new NodeSDK({
    serviceName: config.tracing.serviceName ?? `sightline-${role}`,
    // Metrics are Prometheus' (/metrics) and logs go to stdout: the SDK exports traces only.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        // Customer sites' URLs (sitemaps, robots.txt) are fetched with node:http.
        startOutgoingSpanHook: (options) => ({
          'url.full': redactUrl(
            `${options.protocol ?? 'http:'}//${options.hostname ?? options.host ?? 'localhost'}${options.port ? `:${options.port}` : ''}${options.path ?? '/'}`,
          ),
        }),
      }),
      // Assistant calls: SerpApi's key travels in the query.
      new UndiciInstrumentation({
        startSpanHook: (request) => {
          const url = redactUrl(`${request.origin}${request.path}`);
          return { 'url.full': url, 'url.query': redactQuery(url.includes('?') ? url.slice(url.indexOf('?')) : '') };
        },
      }),
      // Statements and commands outside a request or a job (BullMQ's polling, the key-change subscription) would each be a trace of their own.
      new PgInstrumentation({ requireParentSpan: true }),
      // A command and its key, never its other arguments (job payloads, lock tokens).
      new IORedisInstrumentation({
        requireParentSpan: true,
        dbStatementSerializer: (command, args) => `${command}${typeof args[0] === 'string' ? ` ${args[0]}` : ''}`,
      }),
    ],
  });
  sdk.start();
  // Loaded now through `require`, where the instrumentations' hooks patch them: an ESM import of ioredis 6 is not seen
  // by those hooks, and the rest of the process's imports of these CommonJS packages reuse the module loaded here.
  const load = createRequire(import.meta.url);
  for (const name of ['pg', 'ioredis']) load(name);

  const hooks: TracingHooks = {
    bullmq: new BullMQOtel({ tracerName: 'sightline' }),
    logFields(): Record<string, string> {
      const span = api.trace.getActiveSpan()?.spanContext();
      return span && api.trace.isSpanContextValid(span) ? { trace_id: span.traceId, span_id: span.spanId } : {};
    },
    nameRequest(routePath) {
      // The HTTP instrumentation names the server span `METHOD route` when the request's RPC metadata carries the route.
      const rpc = core.getRPCMetadata(api.context.active());
      if (rpc?.type !== core.RPCType.HTTP) return;
      rpc.route = routePath;
      if (hasSecretParam(routePath)) rpc.span.setAttribute('url.path', routePath);
    },
    detached: (fn) => api.context.with(api.ROOT_CONTEXT, fn),
    async shutdown() {
      setTracingHooks(null);
      await sdk.shutdown();
    },
  };
  setTracingHooks(hooks);
  // Spans still buffered are exported as the process stops, after the API or the workers have closed.
  atLastStop(() => hooks.shutdown());
  return hooks;
}

/** Exports what is buffered and stops; nothing when tracing was never started. */
export async function stopTracing(): Promise<void> {
  await tracingHooks()?.shutdown();
}
