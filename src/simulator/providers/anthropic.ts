import { layout, type SimAnswer } from '../answer.ts';
import {
  bearer,
  failureResponse,
  handleItem,
  handlePrompt,
  header,
  json,
  jobReadyAt,
  type SimContext,
  type SimRequest,
  type SimResponse,
} from '../sim-context.ts';
import { simId } from '../rng.ts';
import type { SimJob } from '../state.ts';
import { arr, obj, s, textOf } from './read.ts';

/**
 * Anthropic under /anthropic: Messages with the web search server tool and
 * Message Batches, as the official `@anthropic-ai/sdk` expects them.
 */

const PROVIDER = 'anthropic';

export function anthropicError(status: number, message: string): unknown {
  const type =
    status === 429
      ? 'rate_limit_error'
      : status === 529
        ? 'overloaded_error'
        : status >= 500
          ? 'api_error'
          : status === 401
            ? 'authentication_error'
            : status === 404
              ? 'not_found_error'
              : 'invalid_request_error';
  return { type: 'error', error: { type, message } };
}

interface Asked {
  model: string;
  prompt: string;
  system: string | null;
  country: string | null;
}

function readMessagesBody(body: unknown): Asked {
  const b = obj(body);
  const users = arr(b.messages)
    .map(obj)
    .filter((m) => m.role === 'user');
  const system = typeof b.system === 'string' ? b.system : textOf(b.system) || null;
  const tool = arr(b.tools)
    .map(obj)
    .find((t) => String(t.type ?? '').startsWith('web_search'));
  return {
    model: s(b.model) ?? 'claude-sonnet-4-6',
    prompt: textOf(users.at(-1)?.content),
    system,
    country: s(obj(tool?.user_location).country) ?? null,
  };
}

/** A Message: a search preamble, server_tool_use + web_search_tool_result per search, then cited text blocks. */
export function messageObject(ctx: SimContext, asked: Asked, answer: SimAnswer, n: number): Record<string, unknown> {
  const content: Record<string, unknown>[] = [];
  if (answer.searches.length > 0)
    content.push({ type: 'text', text: "I'll search for current information on this.", citations: null });
  answer.searches.forEach((query, i) => {
    const toolId = simId('srvtoolu_', n * 10 + i, ctx.seed);
    content.push({
      type: 'server_tool_use',
      id: toolId,
      name: 'web_search',
      input: { query },
      caller: { type: 'direct' },
    });
    content.push({
      type: 'web_search_tool_result',
      tool_use_id: toolId,
      caller: { type: 'direct' },
      content: (i === 0 ? answer.sources : []).map((src) => ({
        type: 'web_search_result',
        url: src.url,
        title: src.title,
        encrypted_content: Buffer.from(`${src.title}\n${src.snippet}`).toString('base64'),
        page_age: 'April 30, 2025',
      })),
    });
  });
  const laid = layout(answer);
  let previousEnd = 0;
  for (const b of laid.blocks) {
    // Blocks carry the separators between them, so joining block texts rebuilds the answer.
    const text = laid.text.slice(previousEnd, b.end);
    previousEnd = b.end;
    const citations = b.block.cites
      .map((i) => answer.sources[i])
      .filter((src) => src !== undefined)
      .map((src) => ({
        type: 'web_search_result_location',
        url: src.url,
        title: src.title,
        encrypted_index: Buffer.from(src.url).toString('base64'),
        cited_text: src.snippet || laid.text.slice(b.start, b.end).slice(0, 150),
      }));
    content.push({ type: 'text', text, citations: citations.length > 0 ? citations : null });
  }
  const outputTokens = Math.ceil(laid.text.length / 4);
  return {
    id: simId('msg_', n, ctx.seed),
    type: 'message',
    role: 'assistant',
    model: asked.model,
    content,
    container: null,
    stop_reason: 'end_turn',
    stop_sequence: null,
    stop_details: null,
    usage: {
      input_tokens: Math.ceil(asked.prompt.length / 4) + 2000,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: null,
      output_tokens: outputTokens,
      server_tool_use: { web_search_requests: answer.searches.length, web_fetch_requests: 0 },
      service_tier: 'standard',
    },
  };
}

interface BatchData {
  requests: { custom_id: string; params: unknown }[];
}

export async function anthropicRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (!header(req, 'x-api-key') && !bearer(req))
    return json(401, anthropicError(401, 'x-api-key header is required (simulated)'));
  const { method, path } = req;

  if (method === 'POST' && path === '/v1/messages') {
    const asked = readMessagesBody(req.json);
    if (!asked.prompt) return json(400, anthropicError(400, 'messages: at least one user message is required'));
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: PROVIDER,
      model: asked.model,
      prompt: asked.prompt,
      system: asked.system,
      location: asked.country,
      language: null,
    });
    if (failure) return failureResponse(failure, anthropicError);
    return json(200, messageObject(ctx, asked, answer, ctx.state.nextId()), {
      'request-id': `req_${ctx.state.nextId()}`,
    });
  }

  if (method === 'POST' && path === '/v1/messages/batches') {
    const requests = arr(obj(req.json).requests)
      .map(obj)
      .map((r) => ({ custom_id: s(r.custom_id) ?? '', params: r.params }));
    if (requests.length === 0) return json(400, anthropicError(400, 'requests: at least one request is required'));
    if (requests.some((r) => !/^[a-zA-Z0-9_-]{1,64}$/.test(r.custom_id)))
      return json(400, anthropicError(400, 'requests: custom_id must match ^[a-zA-Z0-9_-]{1,64}$'));
    const id = simId('msgbatch_', ctx.state.nextId(), ctx.seed);
    const job: SimJob<BatchData> = {
      id,
      provider: PROVIDER,
      createdAt: Date.now(),
      readyAt: jobReadyAt(
        ctx,
        PROVIDER,
        requests.map((r) => readMessagesBody(r.params).prompt),
      ),
      cancelled: false,
      data: { requests },
    };
    ctx.state.jobs.set(id, job);
    return json(200, batchObject(ctx, req, job));
  }

  const m = /^\/v1\/messages\/batches\/([^/]+)(\/results|\/cancel)?$/.exec(path);
  if (m) {
    const job = ctx.state.jobs.get(m[1] ?? '') as SimJob<BatchData> | undefined;
    if (!job || job.provider !== PROVIDER) return json(404, anthropicError(404, `message batch ${m[1]} not found`));
    if (method === 'POST' && m[2] === '/cancel') {
      job.cancelled = true;
      return json(200, batchObject(ctx, req, job));
    }
    if (method !== 'GET') return json(405, anthropicError(405, 'Method not allowed'));
    if (m[2] === '/results') {
      const body = batchObject(ctx, req, job);
      if (body.processing_status !== 'ended') return json(400, anthropicError(400, 'The batch is still processing'));
      return {
        status: 200,
        headers: { 'content-type': 'application/binary' },
        body:
          results(job)
            .map((line) => JSON.stringify(line))
            .join('\n') + '\n',
      };
    }
    return json(200, batchObject(ctx, req, job));
  }

  return json(404, anthropicError(404, `Not found: ${method} ${path}`));
}

function results(job: SimJob<BatchData>): unknown[] {
  return (job.output as unknown[] | undefined) ?? [];
}

function batchObject(ctx: SimContext, req: SimRequest, job: SimJob<BatchData>): Record<string, unknown> {
  const total = job.data.requests.length;
  const ended = job.cancelled || Date.now() >= job.readyAt;
  if (ended && !job.output) {
    job.output = job.data.requests.map((r) => {
      if (job.cancelled) return { custom_id: r.custom_id, result: { type: 'canceled' } };
      const asked = readMessagesBody(r.params);
      const { answer, failure } = handleItem(
        ctx,
        { ...req, path: '/v1/messages/batches' },
        {
          provider: PROVIDER,
          model: asked.model,
          prompt: asked.prompt,
          system: asked.system,
          location: asked.country,
          language: null,
        },
      );
      if (failure)
        return {
          custom_id: r.custom_id,
          result: { type: 'errored', error: anthropicError(failure.status, 'The request failed (simulated)') },
        };
      return {
        custom_id: r.custom_id,
        result: { type: 'succeeded', message: messageObject(ctx, asked, answer, ctx.state.nextId()) },
      };
    });
  }
  const lines = (job.output as { result: { type: string } }[] | undefined) ?? [];
  const count = (type: string) => lines.filter((l) => l.result.type === type).length;
  return {
    id: job.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : 'in_progress',
    request_counts: {
      processing: ended ? 0 : total,
      succeeded: count('succeeded'),
      errored: count('errored'),
      canceled: count('canceled'),
      expired: 0,
    },
    ended_at: ended ? new Date(Math.min(Date.now(), job.readyAt)).toISOString() : null,
    created_at: new Date(job.createdAt).toISOString(),
    expires_at: new Date(job.createdAt + 24 * 3600_000).toISOString(),
    archived_at: null,
    cancel_initiated_at: job.cancelled ? new Date().toISOString() : null,
    results_url: ended ? `${req.origin}/anthropic/v1/messages/batches/${job.id}/results` : null,
  };
}
