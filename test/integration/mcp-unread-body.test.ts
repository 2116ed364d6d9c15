import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * The MCP transport refuses some requests before reading their body (an
 * Accept header without text/event-stream: 406). The body must still be read
 * and dropped, or the connection is left with unread bytes and the next
 * request on it, or the client still writing, sees a reset.
 */

let app: TestApp;
let ws: Org;
beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
});
afterAll(() => app?.close());

function post(agent: http.Agent, body: string, accept: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${app.url}/mcp`);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${ws.keys.admin}`,
          'content-type': 'application/json',
          accept,
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('POST /mcp refused before its body is read', () => {
  it('answers every request on one kept-alive connection, whatever the body size', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(600_000) } });
    const bodies = ['{"extra":true}', big, '[]', big, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })];
    for (const body of bodies) {
      const res = await post(agent, body, '*/*');
      expect(res.status).toBe(406);
      expect(JSON.parse(res.text)).toMatchObject({ error: expect.any(String), fields: null });
    }
    const ok = await post(
      agent,
      JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }),
      'application/json, text/event-stream',
    );
    expect(ok.status).toBe(200);
    agent.destroy();
  });
});
