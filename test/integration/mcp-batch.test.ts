import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as CallModule from '../../src/mcp/call.ts';
import { MAX_BATCH_MESSAGES, TOOL_CALLS_AT_ONCE } from '../../src/mcp/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * JSON-RPC batches on POST /mcp: a batch holds at most 20 messages (the SDK
 * alone allows 100), and its tool calls run at most 4 at a time. Each call
 * is made to take a little while (below) so calls that could overlap do.
 */

const calls = vi.hoisted(() => ({ inFlight: 0, most: 0, total: 0 }));

vi.mock('../../src/mcp/call.ts', async (importOriginal) => {
  const real = await importOriginal<typeof CallModule>();
  return {
    ...real,
    callTool: async (...args: Parameters<typeof real.callTool>) => {
      calls.inFlight++;
      calls.total++;
      calls.most = Math.max(calls.most, calls.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 25));
        return await real.callTool(...args);
      } finally {
        calls.inFlight--;
      }
    },
  };
});

let app: TestApp;
let ws: Org;
beforeAll(async () => {
  app = await startTestApp();
  ws = await seedOrg(app.ctx);
});
afterAll(() => app?.close());

const toolCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'whoami', arguments: {} },
});

async function postMcp(body: unknown) {
  const res = await fetch(`${app.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${ws.keys.viewer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as unknown };
}

describe('JSON-RPC batches on /mcp', () => {
  it(`answers a batch of ${MAX_BATCH_MESSAGES} tool calls, running at most ${TOOL_CALLS_AT_ONCE} at a time`, async () => {
    expect([MAX_BATCH_MESSAGES, TOOL_CALLS_AT_ONCE]).toEqual([20, 4]);
    calls.most = 0;
    calls.total = 0;
    const res = await postMcp(Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => toolCall(i + 1)));
    expect(res.status).toBe(200);
    const answers = res.body as { id: number; result?: { structuredContent?: { role?: string } } }[];
    expect(answers).toHaveLength(MAX_BATCH_MESSAGES);
    expect(answers.map((a) => a.id).sort((a, b) => a - b)).toEqual(
      Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => i + 1),
    );
    for (const a of answers) expect(a.result?.structuredContent?.role).toBe('viewer');
    expect(calls.total).toBe(MAX_BATCH_MESSAGES);
    expect(calls.most).toBeLessThanOrEqual(TOOL_CALLS_AT_ONCE);
    expect(calls.most).toBeGreaterThan(1);
  });

  it(`refuses a batch of more than ${MAX_BATCH_MESSAGES} messages with a JSON-RPC error (-32600), calling nothing`, async () => {
    calls.total = 0;
    for (const size of [MAX_BATCH_MESSAGES + 1, 100]) {
      const res = await postMcp(Array.from({ length: size }, (_, i) => toolCall(i + 1)));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: `Invalid Request: a batch may hold at most 20 messages; this one holds ${size} (JSON-RPC error -32600)`,
        fields: null,
      });
    }
    expect(calls.total).toBe(0);
  });

  it('still answers a single call, and leaves bodies that are not JSON to the transport', async () => {
    const one = await postMcp(toolCall(7));
    expect(one).toMatchObject({ status: 200, body: { id: 7, result: { structuredContent: { role: 'viewer' } } } });
    const res = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${ws.keys.viewer}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '[{"jsonrpc":',
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/-32700/);
  });
});
