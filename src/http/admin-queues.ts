import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppContext } from '../context.ts';
import { AppError, ForbiddenError } from '../errors.ts';
import { QueueBoard } from './queue-board.ts';

/**
 * The queue dashboard (bull-board) at /admin/queues: every queue of the job
 * catalog, its jobs by state, retry and remove. For operators only:
 * - no OPERATOR_TOKEN configured: the path does not exist (404, as any
 *   unknown path, by the caller);
 * - otherwise every request needs the token, as `Authorization: Bearer` or
 *   as the password of HTTP Basic auth (what a browser asks for: the
 *   dashboard's own requests then carry it); a workspace key is not it (401);
 * - a request that changes something must come from the dashboard's own
 *   origin (a page elsewhere cannot make the operator's browser retry or
 *   remove jobs): 403 otherwise;
 * - the actions that would write job payloads or destroy queues (add a
 *   job, edit its data, empty or obliterate a queue) answer 403: jobs are
 *   queued by the API with validated payloads and ids derived from their
 *   entity, and the scan reconciler repairs scans whose jobs were removed.
 * bull-board itself is loaded on the first request, never by an API that is
 * not asked for it.
 */

export const ADMIN_QUEUES_PATH = '/admin/queues';

const REFUSED_ACTIONS = new Set([
  'post /api/queues/:queueName/add',
  'patch /api/queues/:queueName/:jobId/update-data',
  'put /api/queues/:queueName/empty',
  'put /api/queues/:queueName/obliterate',
]);

const HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'self'; form-action 'self'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex',
};

/** A 401 that asks a browser for Basic credentials, so an operator can open the dashboard by typing the token. */
class OperatorTokenRequired extends AppError {
  constructor() {
    super(
      401,
      'The queue dashboard needs the operator token (OPERATOR_TOKEN), as a Bearer token or the password of Basic auth',
      null,
      {
        'WWW-Authenticate': 'Basic realm="Sightline operators", charset="UTF-8"',
      },
    );
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** The token a request presents: a Bearer token, or the password of Basic auth (the user name is ignored). */
function presentedToken(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1] ?? null;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/** A change must come from this origin: an `Origin` (or fetch metadata) naming another site is refused; tools that send neither (curl) pass. */
function fromOwnOrigin(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

export interface AdminQueues {
  /** Whether a request target is the dashboard's. */
  owns(target: string): boolean;
  /** Serves it; throws AppErrors for the server's one error path. */
  handle(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void>;
}

/** The dashboard, or null when OPERATOR_TOKEN is not configured. */
export function adminQueues(ctx: AppContext): AdminQueues | null {
  const token = ctx.config.operatorToken;
  if (!token) return null;
  const expected = digest(token);
  let board: Promise<QueueBoard> | null = null;

  const loadBoard = async (): Promise<QueueBoard> => {
    const [{ createBullBoard }, { BullMQAdapter }] = await Promise.all([
      import('@bull-board/api'),
      import('@bull-board/api/bullMQAdapter'),
    ]);
    const adapter = new QueueBoard(ADMIN_QUEUES_PATH, HEADERS);
    createBullBoard({
      queues: (await ctx.jobs.queueNames()).map(
        (name) => new BullMQAdapter(ctx.jobs.queue(name), { readOnlyMode: false, allowRetries: true, prefix: '' }),
      ),
      serverAdapter: adapter,
      options: {
        uiConfig: { boardTitle: 'Sightline queues', hideDocsLink: true },
        handlerHooks: {
          before: ({ method, route }) =>
            REFUSED_ACTIONS.has(`${method} ${route}`)
              ? {
                  allow: false,
                  status: 403,
                  message: 'Not from the dashboard: jobs are queued by the API, and queues are never emptied by hand',
                }
              : { allow: true },
        },
      },
    });
    return adapter;
  };

  return {
    owns: (target) =>
      target === ADMIN_QUEUES_PATH ||
      target.startsWith(`${ADMIN_QUEUES_PATH}/`) ||
      target.startsWith(`${ADMIN_QUEUES_PATH}?`),
    async handle(req, res, requestId) {
      const presented = presentedToken(req);
      if (presented === null || !timingSafeEqual(digest(presented), expected)) {
        throw new OperatorTokenRequired();
      }
      const method = (req.method ?? 'GET').toUpperCase();
      if (method !== 'GET' && method !== 'HEAD' && !fromOwnOrigin(req))
        throw new ForbiddenError('Changes to the queues are accepted from the dashboard itself only');
      const target = req.url ?? ADMIN_QUEUES_PATH;
      const queryAt = target.indexOf('?');
      const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
      const query = new URLSearchParams(queryAt < 0 ? '' : target.slice(queryAt + 1));
      // The page's relative links resolve against the base with its trailing slash.
      if (pathname === ADMIN_QUEUES_PATH && method === 'GET') {
        res.writeHead(308, {
          ...HEADERS,
          'X-Request-Id': requestId,
          Location: `${ADMIN_QUEUES_PATH}/${queryAt < 0 ? '' : target.slice(queryAt)}`,
        });
        res.end();
        return;
      }
      board ??= loadBoard();
      await (await board).handle(req, res, pathname.slice(ADMIN_QUEUES_PATH.length), query);
    },
  };
}
