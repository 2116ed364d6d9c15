import type { IncomingMessage } from 'node:http';
import pLimit from 'p-limit';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.ts';
import type { Principal } from '../domain/orgs/index.ts';
import { atLeast } from '../domain/orgs/index.ts';
import { BODY_LIMIT_BYTES, hasBody, readRawBody } from '../http/body.ts';
import type { Logger } from '../logger.ts';
import { callTool } from './call.ts';
import type { Tool } from './tools.ts';

/**
 * POST /mcp, after the HTTP server has authenticated the key: the official
 * SDK's Streamable HTTP transport in stateless mode (no session id) with
 * JSON responses, so any API process answers any request. A server and a
 * transport live for one request, holding that request's principal.
 */

export const MCP_SERVER_INFO = { name: 'sightline', title: 'Sightline', version: '0.1.0' };

/**
 * A JSON-RPC batch holds at most this many messages (the SDK allows 100):
 * enough for an agent's handful of reads at once, and a bound on what one
 * request makes the server do.
 */
export const MAX_BATCH_MESSAGES = 20;
/** Tool calls of one request (one batch) run this many at a time; the rest wait their turn. */
export const TOOL_CALLS_AT_ONCE = 4;

const INSTRUCTIONS =
  'Sightline measures how AI assistants (ChatGPT, Claude, Perplexity, Gemini, Google AI Overviews and AI Mode) answer questions about a brand. ' +
  'Start with whoami and list_projects; every project tool takes its projectId. Reports take period (day, week, month, quarter) and start (a date inside the period).';

/**
 * The transport refuses a request it cannot read (406, 413, 415, 400 for
 * malformed JSON or a message that is not JSON-RPC) with a JSON-RPC error
 * body. Clients only read an HTTP error's status and text, so it is answered
 * in the API's one error envelope, the JSON-RPC code kept in the message.
 */
function asErrorEnvelope(status: number, text: string): string {
  let message = `MCP request refused (${status})`;
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    if (typeof parsed.error?.message === 'string')
      message = `${parsed.error.message}${typeof parsed.error.code === 'number' ? ` (JSON-RPC error ${parsed.error.code})` : ''}`;
  } catch {
    // Not JSON: the status says enough.
  }
  return JSON.stringify({ error: message, fields: null });
}

export interface McpAnswer {
  status: number;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

/**
 * The request for the transport, its body read here first: the transport
 * refuses some requests (406, 415) without reading the body, which would
 * leave it on the connection, stalling the next request there or resetting it.
 * The body is parsed here too (once), so a batch's size is known before the
 * transport dispatches any of it; a body that is not JSON is left for the
 * transport to refuse in its own words.
 */
async function webRequest(req: IncomingMessage): Promise<{ request: Request; parsed: unknown }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const body = hasBody(req) ? await readRawBody(req) : undefined;
  headers.delete('transfer-encoding');
  let parsed: unknown;
  try {
    parsed = body === undefined ? undefined : JSON.parse(body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return {
    request: new Request(new URL(req.url ?? '/mcp', 'http://localhost'), { method: req.method, headers, body }),
    parsed,
  };
}

/** A batch over MAX_BATCH_MESSAGES, refused as the transport refuses one over its own bound: 400, JSON-RPC -32600, in the error envelope. */
function oversizedBatch(size: number): McpAnswer {
  const message = `Invalid Request: a batch may hold at most ${MAX_BATCH_MESSAGES} messages; this one holds ${size}`;
  return {
    status: 400,
    body: asErrorEnvelope(400, JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null })),
    contentType: 'application/json; charset=utf-8',
    headers: {},
  };
}

/**
 * One POST /mcp. Stateless, so there is no "before initialize": each request
 * gets a fresh server and transport, and the SDK's clients send initialize on
 * a request of its own, then each call on later ones with no session, so a
 * call is never preceded by an initialize in its own request. What a request
 * can make the server do is bounded instead: at most MAX_BATCH_MESSAGES
 * messages, TOOL_CALLS_AT_ONCE tool calls running at a time, each with the
 * key's checks (authenticated before any message is read).
 */
export async function answerMcp(
  ctx: AppContext,
  principal: Principal,
  tools: readonly Tool[],
  req: IncomingMessage,
  requestId: string,
  log: Logger,
): Promise<McpAnswer> {
  const { request, parsed } = await webRequest(req);
  if (Array.isArray(parsed) && parsed.length > MAX_BATCH_MESSAGES) return oversizedBatch(parsed.length);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const oneAtATime = pLimit(TOOL_CALLS_AT_ONCE);
  const server = new Server(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    instructions: INSTRUCTIONS,
  });
  server.onerror = (err) => log.debug({ err: err.message }, 'mcp protocol error');
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    // A key sees the tools its role may call, like the endpoints it may call.
    tools: tools
      .filter((t) => atLeast(principal.role, t.route.access as 'viewer'))
      .map((t) => ({
        name: t.name,
        description: t.description,
        inputSchema: t.inputSchema,
        annotations: { readOnlyHint: t.readOnly, openWorldHint: false },
      })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call) => {
    const tool = byName.get(call.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool: ${call.params.name}. tools/list names every tool this key may call.`,
      );
    return oneAtATime(() => callTool({ ctx, principal, req, requestId, log }, tool, call.params.arguments ?? {}));
  });

  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: BODY_LIMIT_BYTES,
  });
  transport.onerror = (err) => log.debug({ err: err.message }, 'mcp transport refused a request');
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(request, parsed === undefined ? undefined : { parsedBody: parsed });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type') headers[name] = value;
    });
    const text = await response.text();
    if (response.status >= 400)
      return {
        status: response.status,
        body: asErrorEnvelope(response.status, text),
        contentType: 'application/json; charset=utf-8',
        headers,
      };
    return {
      status: response.status,
      body: text,
      contentType: response.headers.get('content-type') ?? 'application/json',
      headers,
    };
  } finally {
    await server.close();
  }
}
