import { z } from 'zod';
import { named } from '../domain/common/index.ts';

/** The JSON-RPC 2.0 message POST /mcp answers with (the MCP transport writes it; see docs/mcp.md). */
export const jsonRpcResponse = named(
  'JsonRpcResponse',
  'A JSON-RPC 2.0 response of the MCP server: a result or an error for the request id',
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.string(), z.number()]).nullable(),
    result: z.record(z.string(), z.unknown()).optional(),
    error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }).optional(),
  }),
);

/** What POST /mcp answers with 200: one response, or for a batch an array of them (docs/mcp.md). */
export const jsonRpcAnswer = named(
  'JsonRpcAnswer',
  'The JSON-RPC 2.0 response of a request, or the array of responses of a batch (at most 20 messages)',
  z.union([jsonRpcResponse, z.array(jsonRpcResponse)]),
);
