import type { IncomingMessage } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../context.ts';
import { idSchema } from '../domain/common/index.ts';
import type { Principal } from '../domain/orgs/index.ts';
import { AppError, ValidationError, type FieldErrors } from '../errors.ts';
import { authorize, refuseUnservedFields } from '../http/route-checks.ts';
import { validate } from '../http/validate.ts';
import type { Logger } from '../logger.ts';
import type { Tool } from './tools.ts';
import { genericSummary, summaries } from './summaries.ts';

/**
 * One tool call, through the same steps as its HTTP request: ids and input
 * validated by the route's schemas, the same scoping and role check, then the
 * route's own handler. Every refusal is a tool error carrying the HTTP
 * status and the error envelope, so an agent reads what a script would.
 */

export interface CallContext {
  ctx: AppContext;
  principal: Principal;
  req: IncomingMessage;
  requestId: string;
  log: Logger;
}

/** Query values arrive typed (numbers, booleans); the route's query schema reads them as a query string would. */
function asQueryValues(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'number' || typeof value === 'boolean') out[key] = String(value);
    else if (Array.isArray(value))
      out[key] = value.map((v) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v));
    else out[key] = value;
  }
  return out;
}

function readIds(tool: Tool, args: Record<string, unknown>, principal: Principal): Record<string, number> {
  const ids: Record<string, number> = {};
  const fields: FieldErrors = {};
  for (const id of tool.ids) {
    let value = args[id.arg];
    if (value === undefined && id.optional) value = principal.org.id;
    // Agents often quote numbers; a string of digits names the same id.
    if (typeof value === 'string' && /^\d{1,10}$/.test(value)) value = Number(value);
    if (value === undefined) {
      fields[id.arg] = `${id.arg} is required`;
      continue;
    }
    const parsed = idSchema(id.arg).safeParse(value);
    if (parsed.success) ids[id.param] = parsed.data;
    else fields[id.arg] = parsed.error.issues[0]?.message ?? `${id.arg} is not an id`;
  }
  if (Object.keys(fields).length) throw new ValidationError(fields, 'Some arguments are not valid');
  return ids;
}

function failure(status: number, error: string, fields: FieldErrors | null): CallToolResult {
  const detail = fields
    ? ` (${Object.entries(fields)
        .map(([k, v]) => `${k}: ${v}`)
        .join('; ')})`
    : '';
  return {
    isError: true,
    content: [{ type: 'text', text: `Error ${status}: ${error}${detail}` }],
    structuredContent: { error, fields, status },
  };
}

export async function callTool(call: CallContext, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
  const { ctx, principal, log } = call;
  try {
    // In the HTTP order: scope (404) and role (403) before the input (422).
    const ids = readIds(tool, args, principal);
    const site = await authorize(ctx, tool.route, principal, ids);
    const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !tool.ids.some((id) => id.arg === k)));
    const query = tool.route.query ? validate(tool.route.query, asQueryValues(rest), 'query') : undefined;
    const body = tool.route.body ? validate(tool.route.body, rest, 'body') : undefined;
    refuseUnservedFields(tool.route, body, ctx.config.apiVariant);
    const reply = await tool.route.handler({
      ctx,
      principal,
      ids,
      params: {},
      site,
      body,
      query,
      req: call.req,
      log,
      requestId: call.requestId,
    });
    const structured = ('body' in reply ? reply.body : { done: true }) as Record<string, unknown>;
    let text: string;
    try {
      text = (summaries[tool.name] ?? ((b: unknown) => genericSummary(tool.name, b)))(structured);
    } catch {
      text = genericSummary(tool.name, structured);
    }
    return {
      content: [
        { type: 'text', text },
        { type: 'text', text: JSON.stringify(structured) },
      ],
      structuredContent: structured,
    };
  } catch (err) {
    if (err instanceof AppError) return failure(err.status, err.message, err.fields);
    log.error({ err, tool: tool.name }, 'mcp tool failed');
    return failure(500, 'Something went wrong on our side; it has been logged', null);
  }
}
