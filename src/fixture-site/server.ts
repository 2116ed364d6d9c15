import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';

/**
 * A small local web site standing in for a customer's: robots.txt,
 * llms.txt, sitemaps and pages, served from a table of paths that can be
 * changed while it runs. Reached only through SITE_FETCH_MAP (it listens on
 * loopback, which the fetch guard refuses for every other name). The tests
 * build theirs; `sightline demo-site` serves the demo brand's.
 */

export interface FixtureRoute {
  status?: number;
  body?: string | Buffer;
  /** Content-Type; guessed from the path when left out. */
  type?: string;
  headers?: Record<string, string>;
  /** Sent with Content-Encoding: gzip. */
  gzip?: boolean;
  /** Full control, for misbehaving origins (slow, endless, redirects). */
  handle?: (req: IncomingMessage, res: ServerResponse) => void;
}

export interface FixtureSite {
  url: string;
  port: number;
  set(path: string, route: FixtureRoute | string): void;
  remove(path: string): void;
  /** Paths asked for, with the Host and User-Agent they came with. */
  requests: { path: string; host: string; userAgent: string }[];
  close(): Promise<void>;
}

function typeOf(path: string): string {
  if (path.endsWith('.gz')) return 'application/gzip';
  if (path.endsWith('.xml')) return 'application/xml';
  if (path.endsWith('.txt')) return 'text/plain; charset=utf-8';
  return 'text/html; charset=utf-8';
}

export async function startFixtureSite(
  options: { port?: number; host?: string; routes?: Record<string, FixtureRoute | string> } = {},
): Promise<FixtureSite> {
  const routes = new Map<string, FixtureRoute>();
  const set = (path: string, route: FixtureRoute | string) =>
    routes.set(path, typeof route === 'string' ? { body: route } : route);
  for (const [path, route] of Object.entries(options.routes ?? {})) set(path, route);
  const requests: FixtureSite['requests'] = [];
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fixture.local');
    requests.push({
      path: `${url.pathname}${url.search}`,
      host: req.headers.host ?? '',
      userAgent: req.headers['user-agent'] ?? '',
    });
    const route = routes.get(`${url.pathname}${url.search}`) ?? routes.get(url.pathname);
    if (!route) {
      res
        .writeHead(404, { 'content-type': 'text/html; charset=utf-8' })
        .end('<!doctype html><title>Not found</title><h1>Not found</h1>');
      return;
    }
    if (route.handle) return route.handle(req, res);
    let body = typeof route.body === 'string' ? Buffer.from(route.body) : (route.body ?? Buffer.alloc(0));
    const headers: Record<string, string> = { 'content-type': route.type ?? typeOf(url.pathname), ...route.headers };
    if (route.gzip) {
      body = gzipSync(body);
      headers['content-encoding'] = 'gzip';
    }
    res.writeHead(route.status ?? 200, { ...headers, 'content-length': String(body.length) }).end(body);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    set,
    remove: (path) => void routes.delete(path),
    requests,
    async close() {
      // Slow and endless test routes hold connections open; close them too.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
