import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A real HTTP webhook receiver on loopback, reached through SITE_FETCH_MAP
 * (e.g. `hooks.test=<url>`, so webhooks are saved as https://hooks.test/...).
 * It records every request (path, headers, body, when) and answers as the
 * test says per path: a status, after a delay, or never.
 */

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status?: number;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the connection stays open until the receiver closes). */
  hang?: boolean;
  body?: string;
  headers?: Record<string, string>;
}

export type Behaviour = (nth: number, req: Received) => Answer;

export interface Receiver {
  url: string;
  requests: Received[];
  /** Requests to one path. */
  to(path: string): Received[];
  /** How a path answers (by default 200 at once); `nth` counts that path's requests from 1. */
  on(path: string, behaviour: Behaviour): void;
  /** Resolves once a path has had `count` requests. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const waiters = new Set<() => void>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0] as string;
      const received: Received = {
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(received);
      const nth = requests.filter((r) => r.path === path).length;
      for (const w of waiters) w();
      const answer = behaviours.get(path)?.(nth, received) ?? {};
      if (answer.hang) return;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain; charset=utf-8', ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const to = (path: string) => requests.filter((r) => r.path === path);
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    to,
    on: (path, behaviour) => void behaviours.set(path, behaviour),
    waitFor: (path, count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (to(path).length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(to(path));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path} had ${to(path).length} requests, not ${count}, within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
