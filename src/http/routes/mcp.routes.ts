import { MethodNotAllowedError } from '../../errors.ts';
import { buildTools, type Tool } from '../../mcp/tools.ts';
import { answerMcp, MAX_BATCH_MESSAGES } from '../../mcp/server.ts';
import { defineRoute, type Route } from '../route.ts';
import { jsonRpcAnswer } from '../../mcp/responses.ts';

/**
 * The MCP server (src/mcp, docs/mcp.md) at /mcp: the server authenticates
 * the key as for any route (401 without one); each tool then checks its own
 * route's role. Stateless, so no stream to open (GET) or session to end
 * (DELETE): those answer 405, as the Streamable HTTP transport allows.
 */
export function mcpRoutes(allRoutes: () => Route[]): Route[] {
  const built = new Map<string, Tool[]>();
  const toolsFor = (variant: string) => {
    let tools = built.get(variant);
    if (!tools) built.set(variant, (tools = buildTools(allRoutes(), variant)));
    return tools;
  };
  const noStream = () => {
    throw new MethodNotAllowedError(['POST']);
  };
  return [
    defineRoute({
      method: 'POST',
      path: '/mcp',
      operationId: 'mcp',
      tag: 'MCP',
      summary:
        'MCP (Model Context Protocol) over Streamable HTTP, stateless with JSON responses: tools over these endpoints, the same keys and roles (docs/mcp.md)',
      access: 'viewer',
      responses: {
        200: {
          contentType: 'application/json',
          schema: jsonRpcAnswer,
          description: 'The JSON-RPC response, or an array of them for a batch',
        },
        202: { description: 'A notification or response accepted (no body)' },
        400: `Malformed JSON, not a JSON-RPC message, or a batch of more than ${MAX_BATCH_MESSAGES} messages (JSON-RPC error -32600 in the message)`,
        406: 'Accept does not list application/json and text/event-stream',
      },
      handler: async ({ ctx, principal, req, requestId, log }) => {
        const answer = await answerMcp(ctx, principal, toolsFor(ctx.config.apiVariant), req, requestId, log);
        return { status: answer.status, raw: answer.body, contentType: answer.contentType, headers: answer.headers };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/mcp',
      summary: 'MCP: no server-sent event stream on this stateless server (405)',
      access: 'viewer',
      responses: {},
      handler: noStream,
    }),
    defineRoute({
      method: 'DELETE',
      path: '/mcp',
      summary: 'MCP: no session to end on this stateless server (405)',
      access: 'viewer',
      responses: {},
      handler: noStream,
    }),
  ];
}
