/**
 * bench/traced: another bench with tracing on, to say what tracing costs
 * when it is on (`node bench/traced.ts scan`, `node bench/traced.ts http`).
 * The OTEL_* variables are the operator's (an OTLP endpoint must be set);
 * tracing starts before the bench loads anything, as `sightline worker`
 * starts it, and the bench runs inside one root span, as a job runs inside
 * its job's span, so its Postgres and Redis calls are traced too. bench/http
 * needs no wrapper (its API process reads the variables itself); it is
 * accepted here for symmetry. Not run by `npm run bench` (bench/run.ts).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadConfig } from '../src/config.ts';
import { startTracing } from '../src/telemetry/tracing.ts';

const name = process.argv[2];
if (!name) {
  console.error('usage: node bench/traced.ts <bench> (with OTEL_EXPORTER_OTLP_ENDPOINT set)');
  process.exit(2);
}
const config = loadConfig();
if (!config.tracing.enabled) {
  console.error('bench/traced: set OTEL_EXPORTER_OTLP_ENDPOINT (or another OTEL_* exporter) first');
  process.exit(2);
}
await startTracing(config, 'worker');
const api = await import('@opentelemetry/api');
const root = api.trace.getTracer('bench').startSpan(`bench ${name}`);
await api.context.with(
  api.trace.setSpan(api.context.active(), root),
  () => import(pathToFileURL(path.resolve(import.meta.dirname, `${name}.ts`)).href),
);
