import { readiness, health, readinessResponse as readinessSchema } from '../../domain/system/index.ts';
import { UnauthorizedError } from '../../errors.ts';
import { carriesBearer } from '../bearer.ts';
import { buildOpenApi } from '../openapi.ts';
import type { Metrics } from '../prometheus.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** The API's version, shown in the OpenAPI document. */
export const API_VERSION = '0.1.0';

/** Probes, metrics and the OpenAPI document: public, no key. */
export function systemRoutes(metrics: Metrics, allRoutes: () => Route[]): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/healthz',
      operationId: 'getHealth',
      tag: 'System',
      summary: 'Process is up',
      access: 'public',
      responses: { 200: health },
      handler: () => json({ status: 'ok' }),
    }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      operationId: 'getReadiness',
      tag: 'System',
      summary: 'PostgreSQL and Redis are reachable',
      access: 'public',
      responses: { 200: readinessSchema, 503: readinessSchema },
      handler: async ({ ctx }) => {
        const { ready, postgres, redis } = await readiness(ctx);
        return json({ status: ready ? 'ok' : 'unavailable', postgres, redis }, ready ? 200 : 503);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/metrics',
      operationId: 'getMetrics',
      tag: 'System',
      summary:
        'Prometheus metrics; when the deployment sets METRICS_TOKEN, only with Authorization: Bearer <METRICS_TOKEN> (no API key)',
      access: 'public',
      responses: {
        200: {
          contentType: 'text/plain',
          description: 'Prometheus text exposition: request counts and durations by route and status, process metrics',
        },
        401: 'METRICS_TOKEN is set and the request does not carry it as its bearer token',
      },
      handler: async ({ ctx, req }) => {
        const token = ctx.config.metricsToken;
        if (token !== undefined && !carriesBearer(req, token)) {
          throw new UnauthorizedError('Send the metrics token: Authorization: Bearer <METRICS_TOKEN>', {
            'WWW-Authenticate': 'Bearer realm="metrics"',
          });
        }
        return { raw: await metrics.registry.metrics(), contentType: metrics.registry.contentType };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      tag: 'System',
      summary: 'This API as an OpenAPI 3.1 document',
      access: 'public',
      responses: { 200: { contentType: 'application/json', description: 'This document (OpenAPI 3.1)' } },
      handler: ({ ctx }) =>
        json(
          buildOpenApi(
            allRoutes().filter((r) => !r.variant || ctx.config.apiVariant.includes(r.variant)),
            { version: API_VERSION, serverUrl: ctx.config.publicBaseUrl },
          ),
        ),
    }),
  ];
}
