/**
 * Loaded with `node --import` by test/integration/tracing.test.ts: writes
 * `LOADED <url>` on stderr for every module of the OpenTelemetry SDK, its
 * instrumentations and bullmq-otel that the process resolves, by import or
 * require, so a test can tell whether tracing was loaded at all. The
 * no-op API package (`@opentelemetry/api`) is left out: the Anthropic SDK
 * imports it itself, whatever Sightline's settings.
 */
import { registerHooks } from 'node:module';

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (/@opentelemetry\/(?!api\/)|bullmq-otel/.test(resolved.url)) process.stderr.write(`LOADED ${resolved.url}\n`);
    return resolved;
  },
});
