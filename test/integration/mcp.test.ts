import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusteredShare, clusterSums } from '../../src/analysis/intervals.ts';
import { createShare } from '../../src/domain/shares/shares.ts';
import { findSite } from '../../src/domain/sites/sites.ts';
import { revokeApiKey } from '../../src/domain/orgs/api-keys.ts';
import { createMetrics } from '../../src/http/prometheus.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { buildTools } from '../../src/mcp/tools.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedAnswers } from '../helpers/answers.ts';
import { addAcmeSite, addPerson, seedOrg, type Org } from '../helpers/fixtures.ts';

/**
 * The MCP server at /mcp through the official SDK client: initialize, the
 * tool list per role, every tool called and compared with its HTTP route,
 * roles, revoked keys, another workspace's ids, and bad input of every kind.
 */

/** Every tool of the route table (both variants), as the server builds them. */
const TOOLS = buildTools(allRoutes(createMetrics()), 'AB');
let app: TestApp;
let mine: Org;
let theirs: Org;
type Ids = {
  orgId: number;
  projectId: number;
  promptId: number;
  competitorId: number;
  scanId: number;
  reanalysisId: number;
  pageId: number;
  answerId: number;
  webhookId: number;
};
let own: Ids;
let foreign: Ids;
const clients: Client[] = [];

async function fixtures(ws: Org): Promise<Ids> {
  const site = await addAcmeSite(app, ws);
  const { scanId } = await seedAnswers(app.ctx, ws.orgId, site.id, [
    {
      prompt: 'Best CRM for startups?',
      provider: 'openai',
      askedAt: '2026-11-10T10:00:00Z',
      text: 'Acme and Globex.',
      citations: [{ url: 'https://acme.com/pricing', title: 'p' }],
      searches: ['best crm'],
    },
    {
      prompt: 'Best CRM for startups?',
      provider: 'anthropic',
      askedAt: '2026-11-10T10:00:00Z',
      text: 'Globex is great.',
    },
  ]);
  const prompt = await app.ctx.db
    .selectFrom('prompts')
    .select('id')
    .where('siteId', '=', site.id)
    .executeTakeFirstOrThrow();
  const answer = await app.ctx.db
    .selectFrom('answers')
    .select('id')
    .where('siteId', '=', site.id)
    .where('provider', '=', 'openai')
    .executeTakeFirstOrThrow();
  const reanalysis = await app.ctx.db
    .insertInto('reanalyses')
    .values({ siteId: site.id, reason: 'mcp test' })
    .returning('id')
    .executeTakeFirstOrThrow();
  await createShare(app.ctx, await findSite(app.ctx.db, ws.orgId, site.id), ws.ownerId, { label: 'mcp' });
  const page = await app.ctx.db
    .insertInto('pages')
    .values({
      siteId: site.id,
      url: 'https://acme.com/pricing',
      normalizedUrl: 'https://acme.com/pricing',
      path: '/pricing',
      section: 'pricing',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  // Inserted as stored: this app maps no receiver host, so the API would refuse any address.
  const webhook = await app.ctx.db
    .insertInto('webhooks')
    .values({ orgId: ws.orgId, url: 'https://hooks.example.com/in', events: ['*'], secret: 'whsec_dGVzdA==' })
    .returning('id')
    .executeTakeFirstOrThrow();
  return {
    orgId: ws.orgId,
    projectId: site.id,
    promptId: prompt.id,
    competitorId: site.competitors.Globex as number,
    scanId,
    reanalysisId: reanalysis.id,
    pageId: page.id,
    answerId: answer.id,
    webhookId: webhook.id,
  };
}

async function connect(key: string | null): Promise<Client> {
  const client = new Client({ name: 'sightline-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
    requestInit: { headers: key ? { Authorization: `Bearer ${key}` } : {} },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

/** The arguments each tool is called with, and the HTTP request it must answer the same as. */
function cases(ids: Ids): Record<string, { args: Record<string, unknown>; http?: [string, string, unknown?] }> {
  const p = `/projects/${ids.projectId}`;
  return {
    whoami: { args: {}, http: ['GET', '/whoami'] },
    get_workspace: { args: {}, http: ['GET', `/orgs/${ids.orgId}`] },
    get_dashboard: { args: { orgId: ids.orgId }, http: ['GET', `/orgs/${ids.orgId}/dashboard`] },
    get_usage: { args: {}, http: ['GET', `/orgs/${ids.orgId}/usage`] },
    list_members: { args: {}, http: ['GET', `/orgs/${ids.orgId}/members`] },
    list_providers: { args: {}, http: ['GET', `/orgs/${ids.orgId}/providers`] },
    list_projects: { args: {}, http: ['GET', `/orgs/${ids.orgId}/projects`] },
    get_project: { args: { projectId: ids.projectId }, http: ['GET', p] },
    get_report: {
      args: { projectId: ids.projectId, period: 'week', start: '2026-11-10' },
      http: ['GET', `${p}/report?period=week&start=2026-11-10`],
    },
    get_trends: { args: { projectId: ids.projectId, period: 'month' }, http: ['GET', `${p}/trends?period=month`] },
    get_sentiment: { args: { projectId: ids.projectId, answers: '1' }, http: ['GET', `${p}/sentiment?answers=1`] },
    get_sources: { args: { projectId: ids.projectId, perPage: 5 }, http: ['GET', `${p}/sources?perPage=5`] },
    get_competitors: { args: { projectId: ids.projectId }, http: ['GET', `${p}/competitors`] },
    get_competitor: {
      args: { projectId: ids.projectId, competitorId: ids.competitorId },
      http: ['GET', `${p}/competitors/${ids.competitorId}`],
    },
    get_searches: { args: { projectId: ids.projectId }, http: ['GET', `${p}/searches`] },
    list_prompts: {
      args: { projectId: ids.projectId, q: 'crm', perPage: 5 },
      http: ['GET', `${p}/prompts?q=crm&perPage=5`],
    },
    get_prompt: {
      args: { projectId: ids.projectId, promptId: ids.promptId },
      http: ['GET', `${p}/prompts/${ids.promptId}`],
    },
    get_answer: {
      args: { projectId: ids.projectId, promptId: ids.promptId, engine: 'anthropic' },
      http: ['GET', `${p}/prompts/${ids.promptId}/answer?engine=anthropic`],
    },
    get_pending_rewrites: { args: { projectId: ids.projectId }, http: ['GET', `${p}/prompts/rewrite/pending`] },
    list_categories: { args: { projectId: ids.projectId }, http: ['GET', `${p}/categories`] },
    list_personas: { args: { projectId: ids.projectId }, http: ['GET', `${p}/personas`] },
    list_events: { args: { projectId: ids.projectId }, http: ['GET', `${p}/events`] },
    list_pages: { args: { projectId: ids.projectId, shown: 'yes' }, http: ['GET', `${p}/pages?shown=yes`] },
    get_page_prompts: {
      args: { projectId: ids.projectId, pageId: ids.pageId },
      http: ['GET', `${p}/pages/${ids.pageId}/prompts`],
    },
    get_crawlers: { args: { projectId: ids.projectId }, http: ['GET', `${p}/crawlers`] },
    get_crawler_traffic: {
      args: { projectId: ids.projectId, period: 'month', start: '2026-11-10' },
      http: ['GET', `${p}/crawler-traffic?period=month&start=2026-11-10`],
    },
    list_crawler_logs: { args: { projectId: ids.projectId }, http: ['GET', `${p}/crawler-logs`] },
    import_crawler_log: {
      args: {
        projectId: ids.projectId,
        contents: '203.0.113.9 - - [10/Nov/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 1 "-" "GPTBot/1.2"',
      },
    },
    pull_crawler_log: { args: { projectId: ids.projectId, url: 'https://logs.example.com/access.log' } },
    get_scan_options: { args: { projectId: ids.projectId }, http: ['GET', `${p}/scan-options`] },
    estimate_scan: {
      args: { projectId: ids.projectId, providers: ['openai'] },
      http: ['POST', `${p}/scans/estimate`, { providers: ['openai'] }],
    },
    get_live_scan: { args: { projectId: ids.projectId }, http: ['GET', `${p}/scans/live`] },
    list_scans: { args: { projectId: ids.projectId }, http: ['GET', `${p}/scans`] },
    get_scan: {
      args: { projectId: ids.projectId, scanId: ids.scanId, tab: 'all' },
      http: ['GET', `${p}/scans/${ids.scanId}?tab=all`],
    },
    get_reanalysis: {
      args: { projectId: ids.projectId, reanalysisId: ids.reanalysisId },
      http: ['GET', `${p}/reanalyses/${ids.reanalysisId}`],
    },
    list_shares: { args: { projectId: ids.projectId }, http: ['GET', `${p}/shares`] },
    list_names: { args: { projectId: ids.projectId }, http: ['GET', `${p}/names`] },
    list_mention_feedback: {
      args: { projectId: ids.projectId, name: 'Acme', perPage: 5 },
      http: ['GET', `${p}/mention-feedback?name=Acme&perPage=5`],
    },
    get_sampling_plan: {
      args: { projectId: ids.projectId, detect: 10 },
      http: ['GET', `${p}/sampling-plan?detect=10`],
    },
    list_webhooks: { args: {}, http: ['GET', `/orgs/${ids.orgId}/webhooks`] },
    get_webhook: { args: { webhookId: ids.webhookId }, http: ['GET', `/orgs/${ids.orgId}/webhooks/${ids.webhookId}`] },
    list_webhook_deliveries: {
      args: { webhookId: ids.webhookId, perPage: 5 },
      http: ['GET', `/orgs/${ids.orgId}/webhooks/${ids.webhookId}/deliveries?perPage=5`],
    },
    get_alert_settings: { args: {}, http: ['GET', `/orgs/${ids.orgId}/alert-settings`] },
    // Writes: checked on their own below.
    add_mention_feedback: { args: { projectId: ids.projectId, answerId: ids.answerId, name: 'Acme', mentioned: true } },
    start_scan: { args: { projectId: ids.projectId, providers: ['openai'], label: 'from MCP' } },
    cancel_scan: { args: { projectId: ids.projectId, scanId: ids.scanId } },
  };
}

beforeAll(async () => {
  app = await startTestApp();
  mine = await seedOrg(app.ctx, { name: 'Mine', balanceUsd: 50 });
  theirs = await seedOrg(app.ctx, { name: 'Theirs', balanceUsd: 50 });
  own = await fixtures(mine);
  foreign = await fixtures(theirs);
});
afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await app.close();
});

describe('MCP server', () => {
  it('initializes with the server’s name, version, instructions and tools capability', async () => {
    const client = await connect(mine.keys.viewer);
    expect(client.getServerVersion()).toMatchObject({ name: 'sightline', version: expect.any(String) });
    expect(client.getServerCapabilities()?.tools).toBeDefined();
    expect(client.getInstructions()).toContain('list_projects');
  });

  it('lists every tool to an admin key, each with a description and an object input schema', async () => {
    const { tools } = await (await connect(mine.keys.admin)).listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const t of tools) {
      expect(t.description, t.name).toMatch(/Same as (GET|POST) \//);
      expect(t.inputSchema.type).toBe('object');
    }
    const report = tools.find((t) => t.name === 'get_report');
    expect(report?.inputSchema.required).toEqual(['projectId']);
    expect(Object.keys(report?.inputSchema.properties ?? {})).toEqual(['projectId', 'period', 'start']);
    expect(tools.find((t) => t.name === 'start_scan')?.annotations?.readOnlyHint).toBe(false);
  });

  it('lists to a viewer key only the tools a viewer may call', async () => {
    const names = (await (await connect(mine.keys.viewer)).listTools()).tools.map((t) => t.name);
    expect(names).toContain('get_report');
    expect(names).toContain('estimate_scan');
    for (const adminOnly of ['start_scan', 'cancel_scan', 'list_shares']) expect(names).not.toContain(adminOnly);
  });

  it('answers every read tool with exactly what its HTTP route answers, plus a text summary', async () => {
    const client = await connect(mine.keys.admin);
    expect(Object.keys(cases(own)).sort(), 'every tool has a case here').toEqual(TOOLS.map((t) => t.name).sort());
    for (const [name, c] of Object.entries(cases(own))) {
      if (!c.http) continue;
      const result = await call(client, name, c.args);
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const [method, path, body] = c.http;
      const http = await app.request(method, path, { key: mine.keys.admin, body });
      expect(http.status, name).toBe(200);
      expect(result.structuredContent, name).toEqual(http.body);
      const [summary, json] = result.content as { type: string; text: string }[];
      expect(summary?.type).toBe('text');
      expect(summary?.text.length, name).toBeGreaterThan(10);
      expect(summary?.text.length, name).toBeLessThan(1500);
      expect(JSON.parse(json?.text ?? 'null'), name).toEqual(http.body);
    }
  });

  it('pages every list_* tool: page and perPage arguments, an answer carrying total, page and perPage', async () => {
    const client = await connect(mine.keys.admin);
    const { tools } = await client.listTools();
    const lists = tools.filter((t) => t.name.startsWith('list_'));
    expect(lists.map((t) => t.name).sort()).toEqual(
      TOOLS.filter((t) => t.name.startsWith('list_'))
        .map((t) => t.name)
        .sort(),
    );
    for (const tool of lists) {
      expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).toEqual(
        expect.arrayContaining(['page', 'perPage']),
      );
      const args = { ...cases(own)[tool.name]?.args, page: 2, perPage: 5 };
      const result = await call(client, tool.name, args);
      expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      expect(result.structuredContent, tool.name).toMatchObject({ total: expect.any(Number), page: 2, perPage: 5 });
      const tooLarge = await call(client, tool.name, { ...args, perPage: 1000 });
      expect(tooLarge.structuredContent, tool.name).toMatchObject({
        status: 422,
        fields: { perPage: expect.any(String) },
      });
    }
    // The six assistants, five a page: the second page holds the sixth.
    const providers = await call(client, 'list_providers', { page: 2, perPage: 5 });
    expect(providers.structuredContent).toMatchObject({ total: 6, providers: [{ key: 'google-ai-mode' }] });
  });

  it('writes some summaries in words', async () => {
    const client = await connect(mine.keys.viewer);
    const whoami = await call(client, 'whoami');
    expect((whoami.content as { text: string }[])[0]?.text).toBe(
      `Key "viewer key" of viewer person, viewer access in workspace Mine (orgId ${mine.orgId}, plan pro).`,
    );
    const report = await call(client, 'get_report', { projectId: own.projectId, start: '2026-11-10' });
    expect((report.content as { text: string }[])[0]?.text).toBe(
      'Report for week 2026-11-09 to 2026-11-15: visibility 50% (95% range 5.5-94.5%), share of voice 33.3% (95% range 2.5-90.6%), average rank 1, 2 answers. Ranking: 1. Globex 100%, 2. Acme 50%, 3. Initech 0%. Prompts won 0 (0 beyond noise), lost 0 (0 beyond noise).',
    );
  });

  it('shows the 95% intervals of the competitors, sentiment and sources reports, in the structured content and in words', async () => {
    const client = await connect(mine.keys.viewer);
    const pct = (v: number) => Math.round(v * 1000) / 10;
    const competitors = await call(client, 'get_competitors', { projectId: own.projectId, start: '2026-11-10' });
    const body = competitors.structuredContent as {
      competitors: { name: string; visibility: number; visibilityLow: number; visibilityHigh: number }[];
    };
    // One prompt, two answers, both naming Globex: the prompt counts as one answer (clustered), Wilson's 1 of 1.
    const one = clusteredShare(clusterSums([[2, 2]])) as { low: number; high: number };
    const globex = body.competitors.find((c) => c.name === 'Globex');
    expect(globex).toMatchObject({ visibility: 100, visibilityLow: pct(one.low), visibilityHigh: pct(one.high) });
    expect((competitors.content as { text: string }[])[0]?.text).toContain(
      `Globex 2, visibility 100% (95% range ${pct(one.low)}-100%)`,
    );
    const sentiment = await call(client, 'get_sentiment', { projectId: own.projectId, start: '2026-11-10' });
    expect(sentiment.structuredContent).toMatchObject({
      overall: { answers: 1, positiveShareLow: expect.any(Number), positiveShareHigh: expect.any(Number) },
    });
    expect((sentiment.content as { text: string }[])[0]?.text).toMatch(
      /over 1 answers naming the brand: positive [\d.]+% \(95% range [\d.]+-[\d.]+%\)/,
    );
    const sources = await call(client, 'get_sources', { projectId: own.projectId, start: '2026-11-10' });
    expect(sources.structuredContent).toMatchObject({
      sources: [{ domain: 'acme.com', share: 50, shareLow: expect.any(Number), namesBrandHigh: expect.any(Number) }],
    });
  });

  it('corrects a reading with add_mention_feedback from a member key, shown by list_names; a viewer key gets a 403 tool error', async () => {
    const args = cases(own).add_mention_feedback?.args;
    const refused = await call(await connect(mine.keys.viewer), 'add_mention_feedback', args);
    expect(refused.structuredContent).toMatchObject({ status: 403, error: expect.stringContaining('member access') });
    const member = await connect(mine.keys.member);
    const added = await call(member, 'add_mention_feedback', args);
    expect(added.isError, JSON.stringify(added.content)).toBeFalsy();
    expect(added.structuredContent).toMatchObject({
      feedback: { answerId: own.answerId, name: 'Acme', mentioned: true, readingAgreed: true },
      answer: { id: own.answerId, mentioned: true },
    });
    expect((added.content as { text: string }[])[0]?.text).toBe(
      `Saved: Acme is meant in answer ${own.answerId} (the reading agreed). Re-read: verdict cited, brand rank 1.`,
    );
    const listed = await call(member, 'list_names', { projectId: own.projectId });
    const names = listed.structuredContent as {
      names: { name: string; precision: { value: number; corrections: number } }[];
    };
    expect(names.names.find((n) => n.name === 'Acme')?.precision).toMatchObject({ value: 100, corrections: 1 });
    expect((listed.content as { text: string }[])[0]?.text).toMatch(
      /^3 names: Acme counted in 1, refused in 0, precision 100% \(95% range [\d.]+-100%\) over 1 corrections, Globex counted in 2/,
    );
    const list = (await call(member, 'list_mention_feedback', { projectId: own.projectId })).structuredContent as {
      total: number;
    };
    expect(list.total).toBe(1);
  });

  it('starts and cancels a scan with an admin key; a viewer or member key gets a 403 tool error', async () => {
    for (const key of [mine.keys.viewer, mine.keys.member]) {
      const refused = await call(await connect(key), 'start_scan', cases(own).start_scan?.args);
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ status: 403, error: expect.stringContaining('admin access') });
    }
    const admin = await connect(mine.keys.admin);
    const started = await call(admin, 'start_scan', cases(own).start_scan?.args);
    expect(started.isError, JSON.stringify(started.content)).toBeFalsy();
    expect(started.structuredContent).toMatchObject({
      scan: { status: 'queued', label: 'from MCP', trigger: 'manual' },
    });
    const scanId = (started.structuredContent as { scan: { id: number } }).scan.id;
    const cancelled = await call(admin, 'cancel_scan', { projectId: own.projectId, scanId });
    expect(cancelled.structuredContent).toMatchObject({ scan: { id: scanId } });
    expect(['cancelling', 'cancelled']).toContain(
      (cancelled.structuredContent as { scan: { status: string } }).scan.status,
    );
  });

  it('never gives another workspace’s data: its ids are a 404 tool error', async () => {
    const client = await connect(mine.keys.admin);
    const theirs = cases(foreign);
    for (const [name, c] of Object.entries(theirs)) {
      if (!Object.keys(c.args).some((k) => k !== 'orgId' && k.endsWith('Id'))) continue;
      const result = await call(client, name, c.args);
      expect(result.isError, name).toBe(true);
      expect(result.structuredContent, name).toMatchObject({ status: 404, fields: null });
      expect(JSON.stringify(result), name).not.toContain('Theirs');
    }
    const wrongOrg = await call(client, 'list_projects', { orgId: foreign.orgId });
    expect(wrongOrg.structuredContent).toMatchObject({ status: 404 });
    // Own project, another workspace's child id.
    const child = await call(client, 'get_prompt', { projectId: own.projectId, promptId: foreign.promptId });
    expect(child.structuredContent).toMatchObject({ status: 404 });
  });

  it('refuses a request without a key, with a malformed key, or with a revoked key (401)', async () => {
    await expect(connect(null)).rejects.toMatchObject({ code: 401 });
    await expect(connect('slk_not-a-key')).rejects.toMatchObject({ code: 401 });
    const person = await addPerson(app.ctx, mine.orgId, 'admin', 'revokee');
    const client = await connect(person.key);
    expect((await call(client, 'whoami')).isError).toBeFalsy();
    const keyRow = await app.ctx.db
      .selectFrom('apiKeys')
      .select('id')
      .where('createdBy', '=', person.userId)
      .executeTakeFirstOrThrow();
    await revokeApiKey(app.ctx, keyRow.id);
    await expect(call(client, 'whoami')).rejects.toMatchObject({ code: 401 });
    await expect(connect(person.key)).rejects.toMatchObject({ code: 401 });
    const raw = await app.request('POST', '/mcp', {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(raw.status).toBe(401);
    expect(raw.body).toEqual({ error: expect.any(String), fields: null });
  });
});

describe('MCP bad input', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    app.request('POST', '/mcp', {
      key: mine.keys.viewer,
      body,
      headers: { accept: 'application/json, text/event-stream', ...headers },
    });

  it('answers malformed JSON-RPC with 400 and the error envelope, never a 5xx', async () => {
    const malformed = await post('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: 'Parse error: Invalid JSON (JSON-RPC error -32700)', fields: null });
    for (const body of [
      '{"hello": "world"}',
      '[1, 2, 3]',
      '"just a string"',
      'null',
      '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
      `[${'{"jsonrpc":"2.0"},'.repeat(50)}{}]`,
    ]) {
      const res = await post(body);
      expect(res.status, body.slice(0, 40)).toBeGreaterThanOrEqual(400);
      expect(res.status, body.slice(0, 40)).toBeLessThan(500);
      expect(res.body, body.slice(0, 40)).toEqual({
        error: expect.stringMatching(/JSON-RPC error -32\d{3}/),
        fields: null,
      });
    }
    const unknownMethod = await post({ jsonrpc: '2.0', id: 7, method: 'tools/explode' });
    expect(unknownMethod.status).toBe(200);
    expect(unknownMethod.body).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it('refuses a missing Accept, a non-JSON body and a body over 4 MB with 4xx', async () => {
    const noAccept = await app.request('POST', '/mcp', {
      key: mine.keys.viewer,
      body: { jsonrpc: '2.0', id: 1, method: 'ping' },
    });
    expect(noAccept.status).toBe(406);
    expect(noAccept.body).toEqual({ error: expect.stringContaining('Not Acceptable'), fields: null });
    expect((await post('x', { 'content-type': 'text/plain' })).status).toBe(415);
    const huge = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(4 * 1024 * 1024 + 10) },
    });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ error: expect.any(String), fields: null });
  });

  it('answers GET and DELETE /mcp with 405, POST only', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await app.request(method, '/mcp', {
        key: mine.keys.viewer,
        headers: { accept: 'text/event-stream' },
      });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
    expect((await app.request('GET', '/mcp')).status).toBe(401);
  });

  it('answers an unknown tool with a protocol error naming it', async () => {
    const client = await connect(mine.keys.viewer);
    await expect(call(client, 'drop_database')).rejects.toThrow(/Unknown tool: drop_database/);
    // A tool the deployment has but this key may not call is a 403 tool error, not unknown.
    expect((await call(client, 'start_scan', { projectId: own.projectId })).structuredContent).toMatchObject({
      status: 403,
    });
    // As over HTTP, the role is checked before the input.
    expect(
      (await call(client, 'start_scan', { projectId: own.projectId, providers: 'bad' })).structuredContent,
    ).toMatchObject({ status: 403 });
  });

  it('answers arguments failing their schema with a 422 tool error naming each field', async () => {
    const client = await connect(mine.keys.viewer);
    const cases: [string, Record<string, unknown>, Record<string, string>][] = [
      [
        'get_report',
        { projectId: own.projectId, period: 'fortnight' },
        { period: 'period must be one of day, week, month, quarter' },
      ],
      ['get_report', {}, { projectId: 'projectId is required' }],
      ['get_report', { projectId: 'abc' }, { projectId: 'projectId must be a number' }],
      ['get_report', { projectId: 99_999_999_999 }, { projectId: 'projectId is not an id' }],
      [
        'list_prompts',
        { projectId: own.projectId, perPage: 1000 },
        { perPage: 'perPage must be a whole number from 5 to 200' },
      ],
      [
        'get_answer',
        { projectId: own.projectId, promptId: own.promptId, engine: 'bing' },
        { engine: expect.stringContaining('engine must be one of') },
      ],
      ['estimate_scan', { projectId: own.projectId, providers: 'openai' }, { providers: expect.any(String) }],
      ['get_report', { projectId: own.projectId, start: { $gt: '' } }, { start: expect.any(String) }],
    ];
    for (const [name, args, fields] of cases) {
      const result = await call(client, name, args);
      expect(result.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(result.structuredContent, `${name} ${JSON.stringify(args)}`).toMatchObject({ status: 422, fields });
      expect((result.content as { text: string }[])[0]?.text).toMatch(/^Error 422: /);
    }
    // A quoted id is read like the path's digits.
    expect((await call(client, 'get_project', { projectId: String(own.projectId) })).isError).toBeFalsy();
  });
});
