import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { json, type SimContext, type SimRequest, type SimResponse } from './sim-context.ts';
import { anthropicRoute } from './providers/anthropic.ts';
import { appRoute } from './providers/app.ts';
import { geminiRoute } from './providers/gemini.ts';
import { openaiRoute } from './providers/openai.ts';
import { perplexityRoute } from './providers/perplexity.ts';
import { serpRoute } from './providers/serp.ts';
import { limitedResponse, type LimitsInput } from './limits.ts';
import type { UpstreamKey as SimUpstream } from '../assistants/types.ts';
import { SimState } from './state.ts';

/**
 * The assistant simulator: one node:http server speaking each provider's
 * wire format under its own prefix, plus `/__sim/*` to script it and see
 * what it was asked. Everything lives in memory.
 */

export interface SimulatorOptions {
  port?: number;
  host?: string;
  /** Seeds the generated answers; the same seed and prompt give the same answer. */
  seed?: number;
  /** Time until a queue or batch job is ready, unless a script says otherwise. */
  jobDelayMs?: number;
  /** Account limits from the start (requests per minute per upstream), as `POST /__sim/limits` sets them. */
  limits?: LimitsInput;
}

export interface Simulator {
  url: string;
  port: number;
  state: SimState;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024 * 1024;

type Route = (ctx: SimContext, req: SimRequest) => Promise<SimResponse>;
const PREFIXES: [string, Route, SimUpstream][] = [
  ['/openai/v1', openaiRoute, 'openai'],
  ['/anthropic', anthropicRoute, 'anthropic'],
  ['/perplexity', perplexityRoute, 'perplexity'],
  ['/gemini', geminiRoute, 'gemini'],
  ['/serp', serpRoute, 'serp'],
  ['/app', appRoute, 'appGateway'],
];

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const state = new SimState();
  if (options.limits) state.limits.set(options.limits);
  const timers = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  const ctx: SimContext = {
    state,
    seed: options.seed ?? 42,
    jobDelayMs: options.jobDelayMs ?? 2000,
    delay: (ms) =>
      new Promise<void>((resolve) => {
        const entry = { timer: setTimeout(() => (timers.delete(entry), resolve()), ms), resolve };
        timers.add(entry);
      }),
  };

  const server = createServer((req, res) => {
    handle(ctx, req, res).catch((err: unknown) => {
      if (!res.headersSent)
        send(res, json(500, { error: `simulator error: ${err instanceof Error ? err.message : String(err)}` }));
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) {
          clearTimeout(t.timer);
          t.resolve();
        }
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(ctx: SimContext, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://sim');
  const raw = await readBody(req);
  if (raw === null) return send(res, json(413, { error: 'body too large' }));
  const contentType = String(req.headers['content-type'] ?? '');
  let body: unknown = undefined;
  if (raw.length > 0 && (contentType.includes('json') || contentType === '')) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(
        res,
        json(400, {
          error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error' },
        }),
      );
    }
  }
  const origin = `http://${req.headers.host ?? '127.0.0.1'}`;
  const path = url.pathname;

  if (path.startsWith('/__sim/') || path === '/') return send(res, control(ctx, req.method ?? 'GET', path, body));

  for (const [prefix, route, upstream] of PREFIXES) {
    if (path === prefix || path.startsWith(`${prefix}/`)) {
      const verdict = ctx.state.limits.take(upstream);
      if (!verdict.ok) return send(res, limitedResponse(verdict));
      const simReq: SimRequest = {
        method: req.method ?? 'GET',
        path: path.slice(prefix.length) || '/',
        query: url.searchParams,
        headers: req.headers,
        json: body,
        raw,
        origin,
      };
      return send(res, await route(ctx, simReq));
    }
  }
  send(res, json(404, { error: `Unknown path ${path}; providers live under ${PREFIXES.map(([p]) => p).join(', ')}` }));
}

function control(ctx: SimContext, method: string, path: string, body: unknown): SimResponse {
  if (path === '/' || path === '/__sim/health') {
    return json(200, {
      ok: true,
      simulator: 'sightline',
      prefixes: PREFIXES.map(([p]) => p),
      limits: ctx.state.limits.list(),
      scripts: ctx.state.scripts.list().length,
      requests: ctx.state.requests.length,
    });
  }
  if (path === '/__sim/script') {
    if (method === 'DELETE') {
      ctx.state.scripts.clear();
      return json(200, { cleared: true });
    }
    if (method === 'GET') return json(200, { scripts: ctx.state.scripts.list() });
    if (method === 'POST') {
      const items = Array.isArray(body) ? body : [body];
      try {
        const added = items.map((item) => ctx.state.scripts.add(item));
        return json(200, Array.isArray(body) ? { scripts: added } : added[0]);
      } catch (err) {
        const fields =
          err instanceof z.ZodError
            ? Object.fromEntries(err.issues.map((i) => [i.path.join('.') || 'body', i.message]))
            : null;
        return json(422, { error: 'Not a valid script', fields });
      }
    }
    return json(405, { error: 'Use GET, POST or DELETE' }, { allow: 'GET, POST, DELETE' });
  }
  if (path === '/__sim/limits') {
    if (method === 'DELETE') {
      ctx.state.limits.clear();
      return json(200, { cleared: true });
    }
    if (method === 'GET') return json(200, { limits: ctx.state.limits.list(), counts: ctx.state.limits.counts });
    if (method === 'POST') {
      try {
        ctx.state.limits.set(body ?? {});
        return json(200, { limits: ctx.state.limits.list() });
      } catch (err) {
        const fields =
          err instanceof z.ZodError
            ? Object.fromEntries(err.issues.map((i) => [i.path.join('.') || 'body', i.message]))
            : null;
        return json(422, {
          error: 'Not valid limits: {"openai": 1200} or {"openai": {"rpm": 1200, "burst": 20}}, null removes one',
          fields,
        });
      }
    }
    return json(405, { error: 'Use GET, POST or DELETE' }, { allow: 'GET, POST, DELETE' });
  }
  if (path === '/__sim/requests') {
    if (method === 'DELETE') {
      ctx.state.clearLog();
      return json(200, { cleared: true });
    }
    if (method === 'GET') return json(200, { requests: ctx.state.requests, counts: ctx.state.counts });
    return json(405, { error: 'Use GET or DELETE' }, { allow: 'GET, DELETE' });
  }
  return json(404, { error: `Unknown simulator path ${path}` });
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, response: SimResponse): void {
  const headers = { ...response.headers };
  const body =
    typeof response.body === 'string' || Buffer.isBuffer(response.body) ? response.body : JSON.stringify(response.body);
  res.writeHead(response.status, { 'content-length': String(Buffer.byteLength(body)), ...headers });
  res.end(body);
}
