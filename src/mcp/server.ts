import type { IncomingMessage } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.ts';
import type { Principal } from '../domain/workspace/auth.ts';
import { atLeast } from '../domain/workspace/roles.ts';
import { BODY_LIMIT_BYTES, hasBody, readRawBody } from '../http/body.ts';
import type { Logger } from '../logger.ts';
import { callTool } from './call.ts';
import type { Tool } from './catalog.ts';

/**
 * POST /mcp, after the HTTP server has authenticated the key: the official
 * SDK's Streamable HTTP transport in stateless mode (no session id) with
 * JSON responses, so any API process answers any request. A server and a
 * transport live for one request, holding that request's principal.
 */

export const MCP_SERVER_INFO = { name: 'sightline', title: 'Sightline', version: '0.1.0' };

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
    if (typeof parsed.error?.message === 'string') message = `${parsed.error.message}${typeof parsed.error.code === 'number' ? ` (JSON-RPC error ${parsed.error.code})` : ''}`;
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
 */
async function webRequest(req: IncomingMessage): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const body = hasBody(req) ? await readRawBody(req) : undefined;
  headers.delete('transfer-encoding');
  return new Request(new URL(req.url ?? '/mcp', 'http://localhost'), { method: req.method, headers, body });
}

export async function answerMcp(ctx: AppContext, principal: Principal, tools: readonly Tool[], req: IncomingMessage, requestId: string, log: Logger): Promise<McpAnswer> {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS });
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
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = byName.get(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}. tools/list names every tool this key may call.`);
    return callTool({ ctx, principal, req, requestId, log }, tool, request.params.arguments ?? {});
  });

  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: BODY_LIMIT_BYTES });
  transport.onerror = (err) => log.debug({ err: err.message }, 'mcp transport refused a request');
  await server.connect(transport);
  try {
    const response = await transport.handleRequest(await webRequest(req));
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (name !== 'content-type') headers[name] = value;
    });
    const text = await response.text();
    if (response.status >= 400) return { status: response.status, body: asErrorEnvelope(response.status, text), contentType: 'application/json; charset=utf-8', headers };
    return { status: response.status, body: text, contentType: response.headers.get('content-type') ?? 'application/json', headers };
  } finally {
    await server.close();
  }
}
