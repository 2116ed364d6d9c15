import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type {
  AppControllerRoute,
  AppViewRoute,
  BullBoardQueues,
  ControllerHandlerReturnType,
  IServerAdapter,
  UIConfig,
} from '@bull-board/api/typings/app';
import FindMyWay from 'find-my-way';
import { BadRequestError, NotFoundError } from '../errors.ts';
import { readRawBody } from './body.ts';

/**
 * bull-board served on node:http: an `IServerAdapter` (the interface its
 * Express, Fastify and Koa adapters implement) over a find-my-way router.
 * It renders the UI's page (bull-board's EJS template has only plain
 * substitutions, rendered here without an EJS dependency), serves the UI's
 * built files, and calls bull-board's API handlers with the parsed request.
 * Who may reach it is decided before (./admin-queues.ts).
 */

const BODY_LIMIT = 64 * 1024;

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string | undefined>,
  query: URLSearchParams,
) => Promise<void>;

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function sendJsonBody(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (status === 204) {
    res.writeHead(204, { ...headers, 'Cache-Control': 'no-store' });
    res.end();
    return;
  }
  const payload = JSON.stringify(body ?? null);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
  });
  res.end(payload);
}

function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const all = query.getAll(key);
    out[key] = all.length > 1 ? all : (all[0] ?? '');
  }
  return out;
}

async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
  const text = (await readRawBody(req, BODY_LIMIT)).toString('utf8');
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch (err) {
    throw new BadRequestError(`Malformed JSON body: ${(err as Error).message}`);
  }
}

export class QueueBoard implements IServerAdapter {
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  private readonly basePath: string;
  private readonly headers: Record<string, string>;
  private queues: BullBoardQueues = new Map();
  private uiConfig: UIConfig = {};
  private viewsPath = '';
  private errorHandler: (error: Error) => ControllerHandlerReturnType = (error) => ({
    status: 500,
    body: { error: error.message },
  });

  /** `headers` go on every response (security headers, the request id). */
  constructor(basePath: string, headers: Record<string, string> = {}) {
    this.basePath = basePath;
    this.headers = headers;
  }

  setQueues(queues: BullBoardQueues): this {
    this.queues = queues;
    return this;
  }

  setViewsPath(viewsPath: string): this {
    this.viewsPath = viewsPath;
    return this;
  }

  setUIConfig(config: UIConfig): this {
    this.uiConfig = config;
    return this;
  }

  setErrorHandler(handler: (error: Error) => ControllerHandlerReturnType): this {
    this.errorHandler = handler;
    return this;
  }

  setStaticPath(staticsRoute: string, staticsPath: string): this {
    const root = path.resolve(staticsPath);
    this.on('get', `${staticsRoute}/*`, async (_req, res, params) => {
      const file = path.resolve(root, params['*'] ?? '');
      // Only files inside the UI's build: `..` and absolute paths never leave it.
      if (!file.startsWith(`${root}${path.sep}`)) throw new NotFoundError('No such file');
      const info = await stat(file).catch(() => null);
      if (!info?.isFile()) throw new NotFoundError('No such file');
      res.writeHead(200, {
        ...this.headers,
        'Content-Type': CONTENT_TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Content-Length': info.size,
        // The UI's file names carry their content hash.
        'Cache-Control': 'private, max-age=86400',
      });
      await pipeline(createReadStream(file), res);
    });
    return this;
  }

  setEntryRoute(route: AppViewRoute): this {
    let template: Promise<string> | null = null;
    const routes = Array.isArray(route.route) ? route.route : [route.route];
    for (const r of routes) {
      this.on(route.method, r, async (_req, res) => {
        const view = route.handler({ basePath: this.basePath, uiConfig: this.uiConfig });
        template ??= readFile(path.join(this.viewsPath, view.name), 'utf8').then(
          // The operator's browser fetches nothing from third parties: the UI's web font link is dropped (it falls back to system fonts).
          (t) => t.replace(/<link[^>]+fonts\.googleapis\.com[^>]*>/g, ''),
        );
        const html = (await template).replace(/<%([=-])\s*(\w+)\s*%>/g, (_m, kind: string, name: string) => {
          const value = view.params[name] ?? '';
          // `<%-` is raw: bull-board passes the UI config already JSON-encoded with < and > escaped.
          return kind === '-' ? value : escapeHtml(value);
        });
        res.writeHead(200, {
          ...this.headers,
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': Buffer.byteLength(html),
          'Cache-Control': 'no-store',
        });
        res.end(html);
      });
    }
    return this;
  }

  setApiRoutes(routes: AppControllerRoute[]): this {
    for (const route of routes) {
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        for (const r of Array.isArray(route.route) ? route.route : [route.route]) {
          this.on(method, r, async (req, res, params, query) => {
            // A body that is too large or not JSON is the server's own 413 or 400; what the handler throws is bull-board's.
            const body = method === 'get' ? {} : await jsonBody(req);
            let reply: ControllerHandlerReturnType;
            try {
              const headers: Record<string, string | undefined> = {};
              for (const [name, value] of Object.entries(req.headers))
                if (name !== 'authorization' && name !== 'cookie')
                  headers[name] = Array.isArray(value) ? value.join(', ') : value;
              reply = await route.handler({
                queues: this.queues,
                uiConfig: this.uiConfig,
                query: queryObject(query),
                params,
                body,
                headers,
              });
            } catch (err) {
              reply = this.errorHandler(err as Error);
            }
            sendJsonBody(res, reply.status ?? 200, reply.body, this.headers);
          });
        }
      }
    }
    return this;
  }

  private on(method: string, route: string, handler: Handler): void {
    this.router.on(method.toUpperCase() as FindMyWay.HTTPMethod, route, () => undefined, handler);
  }

  /** Serves a path under the board's base (`/`, `/api/queues`, `/static/...`); throws NotFoundError when nothing matches. */
  async handle(req: IncomingMessage, res: ServerResponse, subPath: string, query: URLSearchParams): Promise<void> {
    const match = this.router.find((req.method ?? 'GET').toUpperCase() as FindMyWay.HTTPMethod, subPath || '/');
    if (!match)
      throw new NotFoundError(
        `No page at ${this.basePath}${subPath.length > 200 ? `${subPath.slice(0, 200)}...` : subPath}`,
      );
    await (match.store as Handler)(req, res, match.params, query);
  }
}
