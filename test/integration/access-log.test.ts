import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext, type AppContext } from '../../src/context.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer, type HttpServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedWorkspace, type Workspace } from '../helpers/fixtures.ts';

// A server of its own whose logger writes into `lines`, on the test app's database and Redis.
let app: TestApp;
let ws: Workspace;
let ctx: AppContext;
let http: HttpServer;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedWorkspace(app.ctx, { name: 'Log Co' });
  const into = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  ctx = createContext(app.config, { role: 'api', logger: pino({ level: 'info' }, into), dbPoolSize: 2 });
  http = createHttpServer(ctx, allRoutes);
  url = await http.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await http.close();
  await closeContext(ctx);
  await app.close();
});

/** The access log line of the response (found by its X-Request-Id), and the raw text of every line. */
async function call(path: string, headers: Record<string, string>) {
  const res = await fetch(`${url}${path}`, { headers });
  await res.text();
  const reqId = res.headers.get('x-request-id');
  await expect.poll(() => lines.some((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"'))).toBe(true);
  const line = lines.find((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"')) as string;
  return { res, line, entry: JSON.parse(line) as Record<string, unknown> };
}

describe('access log', () => {
  it('writes one structured line per request with its request id, route, status, time, workspace and key id', async () => {
    const { res, entry } = await call('/whoami', { authorization: `Bearer ${ws.keys.viewer}` });
    expect(res.status).toBe(200);
    const keyId = (await app.ctx.db.selectFrom('apiKeys').select('id').where('createdBy', '=', ws.users.viewer).executeTakeFirstOrThrow()).id;
    expect(entry).toMatchObject({
      level: 30,
      msg: 'request',
      reqId: res.headers.get('x-request-id'),
      method: 'GET',
      path: '/whoami',
      route: '/whoami',
      status: 200,
      orgId: ws.orgId,
      keyId,
    });
    expect(entry.ms).toEqual(expect.any(Number));
    expect(lines.filter((l) => l.includes(`"reqId":"${entry.reqId as string}"`))).toHaveLength(1);
  });

  it('keeps a request id the client sent, and logs the path without its query', async () => {
    const { entry } = await call('/whoami?x=1', { authorization: `Bearer ${ws.keys.viewer}`, 'x-request-id': 'trace-42' });
    expect(entry).toMatchObject({ reqId: 'trace-42', path: '/whoami', status: 200 });
  });

  it('never writes the key, whether it is accepted or refused', async () => {
    const wrong = `slk_${'x'.repeat(40)}`;
    const refused = await call('/whoami', { authorization: `Bearer ${wrong}` });
    expect(refused.entry).toMatchObject({ route: '/whoami', status: 401 });
    expect(refused.entry.orgId).toBeUndefined();
    const accepted = await call('/whoami', { authorization: `Bearer ${ws.keys.admin}` });
    expect(accepted.entry.status).toBe(200);
    const all = lines.join('\n');
    expect(all).not.toContain(wrong);
    expect(all).not.toContain(ws.keys.admin);
    expect(all).not.toContain(ws.keys.viewer);
  });

  it('logs unmatched paths under the route "unmatched"', async () => {
    const { entry } = await call('/a/../nope', {});
    expect(entry).toMatchObject({ route: 'unmatched', status: 404 });
  });
});
