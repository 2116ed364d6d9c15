import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext } from '../../src/context.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer } from '../../src/http/server.ts';
import { createLogger } from '../../src/logger.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { loadJobTable } from '../../jobs/load-table.ts';

let app: TestApp;
let ws: Org;

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
});
afterAll(() => app.close());

function rawRequest(
  options: http.RequestOptions,
  write: (req: http.ClientRequest) => void,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const url = new URL(app.url);
    const req = http.request({ host: url.hostname, port: url.port, ...options }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    // The server may cut the upload off after answering 413; that is the point.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EPIPE' || err.code === 'ECONNRESET' ? undefined : reject(err),
    );
    write(req);
  });
}

describe('error envelope and statuses', () => {
  it('answers 404 with the envelope for an unknown path', async () => {
    const res = await app.request('GET', '/nope', { key: ws.keys.viewer });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: expect.any(String), fields: null });
  });

  it('answers 405 with Allow for a known path and wrong method', async () => {
    const res = await app.request('DELETE', '/whoami', { key: ws.keys.viewer });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.fields).toBeNull();
  });

  it('answers 415 for a body without a JSON content type', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: '{"name":"a","url":"a.com"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatch(/JSON/);
  });

  it('answers 400 for malformed JSON', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: '{"name":' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.stringMatching(/Malformed JSON/), fields: null });
  });

  it('answers 422 naming each wrong field', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: '', brandTerms: 'x' },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.fields).sort()).toEqual(['brandTerms', 'name', 'url']);
  });

  it('answers 422 for a JSON body that is not an object', async () => {
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: [1, 2] });
    expect(res.status).toBe(422);
    expect(res.body.fields).toHaveProperty('body');
  });

  it('answers 413 at once for a declared body over 4 MB', async () => {
    const res = await rawRequest(
      {
        method: 'POST',
        path: `/orgs/${ws.orgId}/projects`,
        headers: {
          authorization: `Bearer ${ws.keys.admin}`,
          'content-type': 'application/json',
          'content-length': String(5 * 1024 * 1024),
        },
      },
      (req) => req.end(),
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: expect.stringMatching(/4 MB/), fields: null });
  });

  it('cuts off a streamed (chunked) body once it passes 4 MB and answers 413', async () => {
    const chunk = Buffer.alloc(256 * 1024, 'a');
    const res = await rawRequest(
      {
        method: 'POST',
        path: `/orgs/${ws.orgId}/projects`,
        headers: { authorization: `Bearer ${ws.keys.admin}`, 'content-type': 'application/json' },
      },
      (req) => {
        let sent = 0;
        const pump = () => {
          while (sent < 40 && !req.destroyed) {
            sent++;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      },
    );
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
  });

  it('lets fetch read the 413 of a body over 4 MB sent whole (the rest is read and dropped, not cut off)', async () => {
    const big = JSON.stringify({ name: 'Big', url: 'big.com', pad: 'y'.repeat(12 * 1024 * 1024) });
    for (const headers of [{}, { 'transfer-encoding': 'chunked' }]) {
      const body = 'transfer-encoding' in headers ? new Blob([big]).stream() : big;
      const res = await fetch(`${app.url}/orgs/${ws.orgId}/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.keys.admin}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit);
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({ error: expect.stringMatching(/4 MB/), fields: null });
    }
  });

  it('accepts a body just under the limit', async () => {
    const big = { name: 'Big', url: 'big-site.com', industry: 'x'.repeat(100), pad: 'y'.repeat(3 * 1024 * 1024) };
    const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, { key: ws.keys.admin, body: big });
    expect(res.status).toBe(200);
  });

  it('puts X-Request-Id on every response, keeping a sane one the client sent', async () => {
    const ok = await app.request('GET', '/healthz');
    const err = await app.request('GET', '/whoami');
    const given = await app.request('GET', '/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(ok.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(err.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(given.headers.get('x-request-id')).toBe('trace-123');
  });

  it('answers 404 for a malformed id rather than 500', async () => {
    const res = await app.request('GET', '/orgs/abc/members', { key: ws.keys.viewer });
    expect(res.status).toBe(404);
    const huge = await app.request('GET', '/orgs/99999999999/members', { key: ws.keys.viewer });
    expect(huge.status).toBe(404);
  });
});

describe('health, readiness, metrics', () => {
  it('serves /healthz and /readyz without a key', async () => {
    expect((await app.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await app.request('GET', '/readyz')).body).toEqual({ status: 'ok', postgres: 'ok', redis: 'ok' });
  });

  it('counts requests by route and status in /metrics', async () => {
    await app.request('GET', '/whoami', { key: ws.keys.viewer });
    const res = await app.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_requests_total\{method="GET",route="\/whoami",status="200"\} \d+/);
    expect(res.text).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/whoami",status="200"\}/,
    );
  });
});

describe('/metrics behind METRICS_TOKEN', () => {
  const token = 'mt_9hQ2vX7kLpR4sW8z';
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    // A server of its own, on this file's database and Redis, for a deployment that sets the token.
    const ctx = createContext(loadConfig({ ...app.env, METRICS_TOKEN: token }), {
      role: 'api',
      jobTable: loadJobTable,
      logger: createLogger('silent'),
      dbPoolSize: 2,
    });
    const server = createHttpServer(ctx, allRoutes);
    url = await server.listen(0, '127.0.0.1');
    close = async () => (await server.close(), await closeContext(ctx));
  });
  afterAll(() => close());
  const metrics = (authorization?: string) =>
    fetch(`${url}/metrics`, { headers: authorization ? { authorization } : {} });

  it('answers 401 without the token, with a wrong one, or with another scheme', async () => {
    for (const authorization of [
      undefined,
      `Bearer ${token}x`,
      `Bearer ${token.slice(0, -1)}`,
      'Bearer x',
      `Basic ${token}`,
      `Bearer ${ws.keys.admin}`,
    ]) {
      const res = await metrics(authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"');
      expect(await res.json()).toEqual({
        error: 'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>',
        fields: null,
      });
    }
  });

  it('serves the metrics with the token', async () => {
    const res = await metrics(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toMatch(/http_requests_total\{method="GET",route="\/metrics",status="401"\} \d+/);
  });

  it('stays open when the token is not set (the default)', async () => {
    expect(app.config.metricsToken).toBeUndefined();
    expect((await app.request('GET', '/metrics')).status).toBe(200);
  });
});

describe('openapi', () => {
  it('lists every route a key can call with its schemas', async () => {
    const res = await app.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const paths = res.body.paths as Record<string, Record<string, { requestBody?: unknown; 'x-access': string }>>;
    expect(paths['/whoami']?.get?.['x-access']).toBe('viewer');
    expect(paths['/orgs/{orgId}/projects']?.post?.requestBody).toMatchObject({
      content: { 'application/json': { schema: { properties: { url: {} } } } },
    });
    // Signed-in-only actions (no key can call them) are left out.
    expect(paths['/orgs/{orgId}/tokens']).toBeUndefined();
    const { allRoutes } = await import('../../src/http/routes/index.ts');
    const { createMetrics } = await import('../../src/http/prometheus.ts');
    const { documented } = await import('../../src/http/openapi.ts');
    for (const route of allRoutes(createMetrics()).filter(documented)) {
      const path = route.path.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{rest}');
      expect(paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });
});
