import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Metrics } from '../prometheus.ts';
import { buildOpenApi } from '../openapi.ts';
import { defineRoute, json, type Route } from '../route.ts';

const VERSION = '0.1.0';

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function check(work: () => Promise<unknown>): Promise<string> {
  try {
    await withTimeout(work(), 2000);
    return 'ok';
  } catch (err) {
    return `unavailable: ${(err as Error).message}`;
  }
}

export function systemRoutes(metrics: Metrics, allRoutes: () => Route[]): Route[] {
  return [
    defineRoute({ method: 'GET', path: '/healthz', summary: 'Process is up', access: 'public', handler: () => json({ status: 'ok' }) }),
    defineRoute({
      method: 'GET',
      path: '/readyz',
      summary: 'PostgreSQL and Redis are reachable',
      access: 'public',
      handler: async ({ ctx }: { ctx: AppContext }) => {
        const [postgres, redis] = await Promise.all([check(() => sql`SELECT 1`.execute(ctx.db)), check(() => ctx.redis.ping())]);
        const ok = postgres === 'ok' && redis === 'ok';
        return json({ status: ok ? 'ok' : 'unavailable', postgres, redis }, ok ? 200 : 503);
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics',
      access: 'public',
      handler: async () => ({ raw: await metrics.registry.metrics(), contentType: metrics.registry.contentType }),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      access: 'public',
      handler: ({ ctx }) => json(buildOpenApi(allRoutes().filter((r) => !r.variant || ctx.config.apiVariant.includes(r.variant)), { version: VERSION, serverUrl: ctx.config.publicBaseUrl })),
    }),
  ];
}
