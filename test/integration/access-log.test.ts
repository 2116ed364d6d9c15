import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeContext, createContext, type AppContext } from '../../src/context.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer, type HttpServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { loadJobTable } from '../../jobs/load-table.ts';

// A server of its own whose logger writes into `lines`, on the test app's database and Redis.
let app: TestApp;
let ws: Org;
let ctx: AppContext;
let http: HttpServer;
let url: string;
const lines: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx, { name: 'Log Co' });
  const into = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  ctx = createContext(app.config, {
    role: 'api',
    jobTable: loadJobTable,
    logger: pino({ level: 'info' }, into),
    dbPoolSize: 2,
  });
  http = createHttpServer(ctx, allRoutes);
  url = await http.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await http.close();
  await closeContext(ctx);
  await app.close();
});

/** The access log line of the response (found by its X-Request-Id), and the raw text of every line. */
async function call(path: string, headers: Record<string, string>, method = 'GET') {
  const res = await fetch(`${url}${path}`, { headers, method });
  await res.text();
  const reqId = res.headers.get('x-request-id');
  await expect
    .poll(() => lines.some((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"')))
    .toBe(true);
  const line = lines.find((l) => l.includes(`"reqId":"${reqId}"`) && l.includes('"msg":"request"')) as string;
  return { res, line, entry: JSON.parse(line) as Record<string, unknown> };
}

describe('access log', () => {
  it('writes one structured line per request with its request id, route, status, time, workspace and key id', async () => {
    const { res, entry } = await call('/whoami', { authorization: `Bearer ${ws.keys.viewer}` });
    expect(res.status).toBe(200);
    const keyId = (
      await app.ctx.db
        .selectFrom('apiKeys')
        .select('id')
        .where('createdBy', '=', ws.users.viewer)
        .executeTakeFirstOrThrow()
    ).id;
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
    const { entry } = await call('/whoami?x=1', {
      authorization: `Bearer ${ws.keys.viewer}`,
      'x-request-id': 'trace-42',
    });
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

describe('access log: no secret of a path or query', () => {
  const all = () => lines.join('\n');

  it('logs a share page as its route template, never its token', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Logged', url: 'logged.com' },
    });
    const share = await app.request('POST', `/projects/${site.body.project.id}/shares`, {
      key: ws.keys.admin,
      body: { label: 'log test' },
    });
    const token = new URL(share.body.url as string).pathname.split('/').pop() as string;
    expect(token.length).toBeGreaterThan(20);
    const { res, entry } = await call(`/share/${token}`, {});
    expect(res.status).toBe(200);
    expect(entry).toMatchObject({ route: '/share/:token', path: '/share/:token', status: 200 });
    // A revoked or mistyped token is refused the same way, and not logged either.
    const wrong = await call(`/share/${token}x`, {});
    expect(wrong.entry).toMatchObject({ path: '/share/:token', status: 404 });
    expect(all()).not.toContain(token);
  });

  it('logs an invitation accept path without its token', async () => {
    const token = `inv-${'k7Q2'.repeat(10)}`;
    const { entry } = await call(`/invitations/${token}/accept`, { authorization: `Bearer ${ws.keys.admin}` }, 'POST');
    expect(entry).toMatchObject({
      route: '/invitations/:token/accept',
      path: '/invitations/:token/accept',
      status: 403,
    });
    expect(all()).not.toContain(token);
  });

  it('never logs a query, so a key or token sent in one stays out', async () => {
    const secret = `slk_${'Zq9'.repeat(13)}x`;
    const { entry } = await call(`/whoami?key=${secret}&token=${secret}&api_key=${secret}`, {
      authorization: `Bearer ${ws.keys.viewer}`,
    });
    expect(entry).toMatchObject({ path: '/whoami', status: 200 });
    expect(all()).not.toContain(secret);
    expect(all()).not.toContain('Zq9Zq9');
  });

  it('logs ids of a matched route, and only route words and numbers of an unknown path', async () => {
    const site = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
      key: ws.keys.admin,
      body: { name: 'Ids', url: 'ids-logged.com' },
    });
    const id = site.body.project.id as number;
    const listed = await call(`/projects/${id}/prompts`, { authorization: `Bearer ${ws.keys.viewer}` });
    expect(listed.entry).toMatchObject({
      route: '/projects/:id/prompts',
      path: `/projects/${id}/prompts`,
      status: 200,
    });
    // A typo of a share path may carry the token: only the words of the route table and numbers are kept.
    const secret = 'Xy7secretTokenInATypo0123456789abcdef';
    const missed = await call(`/shares/${secret}/projects/42?token=${secret}`, {});
    expect(missed.entry).toMatchObject({ route: 'unmatched', path: '/shares/*/projects/42', status: 404 });
    const long = await call(`/${Array.from({ length: 20 }, (_, i) => `seg${i}`).join('/')}`, {});
    expect(long.entry.path).toBe(`/${Array.from({ length: 12 }, () => '*').join('/')}/...`);
    // A known path with another method (405) is logged the same careful way.
    const wrongMethod = await call(`/share/${secret}`, {}, 'DELETE');
    expect(wrongMethod.entry).toMatchObject({ path: '/share/*', status: 405 });
    expect(all()).not.toContain(secret);
  });
});
