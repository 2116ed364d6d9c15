import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { closeContext, createContext, type AppContext } from '../../src/context.ts';
import { createLogger } from '../../src/logger.ts';
import { startSimulator } from '../../src/simulator/index.ts';
import { clearRedisPrefix } from '../helpers/app.ts';
import { createTestDatabase } from '../helpers/database.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { addActivePrompts } from '../helpers/scans.ts';
import { loadJobTable } from '../../jobs/load-table.ts';

/**
 * Traces across the API and a worker, as deployed: `sightline api` and
 * `sightline worker` run as processes of their own with the standard OTEL_*
 * variables, exporting OTLP (http/json) to a receiver in this test. One scan
 * is followed from `POST /projects/:id/scans` through its job to its
 * provider calls and its database writes; log lines name the span they were
 * written in; nothing secret reaches a span. Without the variables, neither
 * process loads any OpenTelemetry module (test/helpers/otel-probe.ts reports
 * each one resolved).
 */

const NODE = path.resolve('node_modules/.bin/node');
const CLI = path.resolve('src/cli/main.ts');
const PROBE = path.resolve('test/helpers/otel-probe.ts');
const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;

interface SpanRecord {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpValue[] };
};
type OtlpAttribute = { key: string; value: OtlpValue };

const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.boolValue ??
  v.doubleValue ??
  v.arrayValue?.values?.map(valueOf);
const attributes = (list: OtlpAttribute[] | undefined) =>
  Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));
/** Ids arrive as hex in OTLP/JSON; base64 is accepted too. */
const hexId = (id: string | undefined) =>
  !id ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex');

/** An OTLP/HTTP (JSON) receiver: keeps every span it is sent. */
async function startReceiver() {
  const spans: SpanRecord[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: {
            resource?: { attributes?: OtlpAttribute[] };
            scopeSpans?: {
              spans?: (Omit<SpanRecord, 'attributes' | 'service'> & { attributes?: OtlpAttribute[] })[];
            }[];
          }[];
        };
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributes(rs.resource?.attributes)['service.name']);
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: hexId(s.traceId),
                spanId: hexId(s.spanId),
                parentSpanId: hexId(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                attributes: attributes(s.attributes),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** `sightline <command>` as a process of its own (with the module probe), its JSON log lines and stderr kept. */
function sightline(command: string, env: Record<string, string>) {
  const proc = spawn(NODE, ['--import', PROBE, CLI, command], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  let rest = '';
  proc.stdout?.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString()).split('\n');
    rest = parts.pop() ?? '';
    for (const part of parts) if (part.startsWith('{')) lines.push(JSON.parse(part) as Record<string, unknown>);
  });
  proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    lines,
    stderr: () => stderr,
    async line(match: (l: Record<string, unknown>) => boolean, timeout = 30_000): Promise<Record<string, unknown>> {
      const deadline = Date.now() + timeout;
      for (;;) {
        const found = lines.find(match);
        if (found) return found;
        if (proc.exitCode !== null || Date.now() > deadline)
          throw new Error(
            `sightline ${command} never logged the expected line (exit ${proc.exitCode}); stderr:\n${stderr.slice(-2000)}`,
          );
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async stop(): Promise<number | null> {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      return exited;
    },
  };
}

async function until<T>(what: string, probe: () => T | undefined | null | false, timeout = 30_000): Promise<T> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let simulator: Awaited<ReturnType<typeof startSimulator>>;
let database: Awaited<ReturnType<typeof createTestDatabase>>;
let env: Record<string, string>;
let ctx: AppContext;
let ws: Org;
let api: ReturnType<typeof sightline>;
let worker: ReturnType<typeof sightline>;
let apiUrl: string;

async function call<T = Record<string, unknown>>(
  method: string,
  route: string,
  key: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${apiUrl}${route}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // Each caller names the shape of the JSON it expects.
  return {
    status: res.status,
    body: (res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
  };
}

beforeAll(async () => {
  [receiver, simulator, database] = await Promise.all([
    startReceiver(),
    startSimulator({ port: 0, host: '127.0.0.1', jobDelayMs: 200 }),
    createTestDatabase(),
  ]);
  env = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `sightline-test:${randomBytes(5).toString('hex')}`,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    ASSISTANTS: 'simulator',
    SIMULATOR_URL: simulator.url,
    ASSISTANT_RETRY_BASE_MS: '10',
    SITE_FETCH_OUTBOUND: 'off',
  };
  const traced = {
    ...env,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '100',
  };
  api = sightline('api', traced);
  worker = sightline('worker', traced);
  apiUrl = String((await api.line((l) => l.msg === 'API listening')).url);
  await worker.line((l) => l.msg === 'workers started');
  ctx = createContext(loadConfig(env), {
    role: 'cli',
    jobTable: loadJobTable,
    logger: createLogger('silent'),
    dbPoolSize: 2,
  });
  ws = await seedOrg(ctx, { balanceUsd: 20 });
}, 90_000);

afterAll(async () => {
  await Promise.all([api?.stop(), worker?.stop()]);
  if (ctx) await closeContext(ctx);
  await clearRedisPrefix(env.REDIS_URL as string, env.REDIS_PREFIX as string);
  await Promise.all([database?.drop(), simulator?.close(), receiver?.close()]);
});

describe('traces across the API and the workers', { timeout: 120_000 }, () => {
  it('follow one scan from its request through its job to its provider calls and its stored answers', async () => {
    const site = await call<{ project: { id: number } }>('POST', `/orgs/${ws.orgId}/projects`, ws.keys.admin, {
      name: 'Traced',
      url: 'traced.com',
    });
    const siteId = site.body.project.id;
    await addActivePrompts(ctx, siteId, [
      'Which Traced alternative is best for teams?',
      'Is Traced good for startups?',
    ]);
    const start = await call<{ scan: { id: number } }>('POST', `/projects/${siteId}/scans`, ws.keys.admin, {
      providers: ['openai', 'google-ai-overview'],
    });
    expect(start.status).toBe(200);
    const scanId = start.body.scan.id;
    for (const deadline = Date.now() + 30_000; ;) {
      const row = await ctx.db
        .selectFrom('scans')
        .select(['status', 'answersDone'])
        .where('id', '=', scanId)
        .executeTakeFirstOrThrow();
      if (row.status === 'done') break;
      if (Date.now() > deadline) throw new Error(`scan still ${row.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const request = await until('the request span', () =>
      receiver.spans.find((s) => s.name === 'POST /projects/:id/scans' && s.kind === KIND.server),
    );
    const traceId = request.traceId;
    const inTrace = () => receiver.spans.filter((s) => s.traceId === traceId);
    // The answer writer's insert is a prepared statement of its own text (src/domain/answers/store.ts), not Kysely's quoted one.
    const isAnswerInsert = (s: SpanRecord) =>
      /insert into "?answers"?[\s(]/i.test(String(s.attributes['db.query.text'] ?? s.attributes['db.statement'] ?? ''));
    await until('the worker spans of the trace', () => {
      const spans = inTrace();
      return (
        spans.some((s) => s.kind === KIND.consumer) &&
        spans.filter((s) => s.kind === KIND.client && s.service === 'sightline-worker').length >= 4 &&
        spans.some(isAnswerInsert)
      );
    });
    const spans = inTrace();
    expect(request.service).toBe('sightline-api');
    expect(request.attributes['http.route']).toBe('/projects/:id/scans');

    // The enqueue in the API, the job's run in the worker.
    const enqueue = spans.find((s) => s.kind === KIND.producer);
    const run = spans.find((s) => s.kind === KIND.consumer);
    expect(enqueue).toMatchObject({ service: 'sightline-api', name: 'add scan.scan' });
    expect(run).toMatchObject({ service: 'sightline-worker', name: 'process scan', parentSpanId: enqueue?.spanId });

    // Every worker span of the trace descends from the request, through the job's run.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const ancestors = (s: SpanRecord) => {
      const chain: string[] = [];
      for (let at = byId.get(s.parentSpanId); at; at = byId.get(at.parentSpanId)) chain.push(at.spanId);
      return chain;
    };
    const workerSpans = spans.filter((s) => s.service === 'sightline-worker');
    for (const s of workerSpans.filter((x) => x !== run))
      expect(ancestors(s), s.name).toEqual(expect.arrayContaining([run?.spanId, request.spanId]));

    // Its provider calls (undici) and its writes (pg).
    const calls = workerSpans.filter(
      (s) => s.kind === KIND.client && String(s.attributes['url.full'] ?? '').startsWith(simulator.url),
    );
    expect(calls.length).toBeGreaterThanOrEqual(4);
    expect(calls.some((s) => String(s.attributes['url.full']).includes('/openai/'))).toBe(true);
    const serp = calls.find((s) => String(s.attributes['url.full']).includes('/serp/'));
    expect(String(serp?.attributes['url.full'])).toContain('api_key=REDACTED');
    expect(workerSpans.filter(isAnswerInsert).length).toBeGreaterThanOrEqual(1);
    expect(
      workerSpans.some(
        (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
      ),
    ).toBe(true);
    // Redis commands made by the job (the provider gate's leases), named by command and key only: never a job's payload.
    const redis = workerSpans.filter(
      (s) => s.attributes['db.system.name'] === 'redis' || s.attributes['db.system'] === 'redis',
    );
    expect(redis.map((s) => s.name)).toEqual(expect.arrayContaining(['zadd', 'zrem']));
    expect(JSON.stringify(spans)).not.toContain('scanId');
    // The metrics' periodic flush belongs to no request or job.
    expect(spans.filter((s) => s.name === 'hincrbyfloat')).toEqual([]);

    // Log lines written inside a span name it: the API's access log, the worker's job lines.
    const access = await api.line(
      (l) => l.msg === 'request' && l.route === '/projects/:id/scans' && l.method === 'POST',
    );
    expect(access.trace_id).toBe(traceId);
    const started = await worker.line((l) => l.msg === 'job started' && l.job === 'scan');
    expect(started.trace_id).toBe(traceId);
    expect(started.span_id).toMatch(/^[0-9a-f]{16}$/);

    // No credential reaches a span: the simulator's key travels in SerpApi's query.
    expect(JSON.stringify(receiver.spans)).not.toContain('sim-key-not-secret');
    // Tracing on loads the SDK (the probe sees it), which the test of tracing off relies on.
    expect(api.stderr()).toMatch(/LOADED .*@opentelemetry\/sdk-node/);
  });

  it("names a share link's request by its route and never shows the token", async () => {
    const sites = await call<{ projects: { id: number }[] }>('GET', `/orgs/${ws.orgId}/projects`, ws.keys.viewer);
    const share = await call<{ url: string }>('POST', `/projects/${sites.body.projects[0]?.id}/shares`, ws.keys.admin, {
      label: 'traced',
    });
    expect(share.status).toBe(200);
    const token = share.body.url.split('/share/')[1] as string;
    const page = await fetch(`${apiUrl}/share/${token}`);
    expect(page.status).toBe(200);
    const span = await until('the share page span', () => receiver.spans.find((s) => s.name === 'GET /share/:token'));
    expect(span.attributes['url.path']).toBe('/share/:token');
    await new Promise((r) => setTimeout(r, 500));
    expect(JSON.stringify(receiver.spans)).not.toContain(token);
  });
});

describe('with tracing off (no OTEL_* variable)', { timeout: 120_000 }, () => {
  it('the API and a worker load no OpenTelemetry module and log no trace ids', async () => {
    const plainApi = sightline('api', env);
    const plainWorker = sightline('worker', { ...env, REDIS_PREFIX: `${env.REDIS_PREFIX}-plain` });
    try {
      const url = String((await plainApi.line((l) => l.msg === 'API listening')).url);
      await plainWorker.line((l) => l.msg === 'workers started');
      expect(
        (await fetch(`${url}/orgs/${ws.orgId}`, { headers: { authorization: `Bearer ${ws.keys.viewer}` } })).status,
      ).toBe(200);
      const access = await plainApi.line((l) => l.msg === 'request');
      expect(access).not.toHaveProperty('trace_id');
    } finally {
      expect(await plainApi.stop()).toBe(0);
      expect(await plainWorker.stop()).toBe(0);
      await clearRedisPrefix(env.REDIS_URL as string, `${env.REDIS_PREFIX}-plain`);
    }
    expect(plainApi.stderr()).not.toContain('LOADED');
    expect(plainWorker.stderr()).not.toContain('LOADED');
  });
});
