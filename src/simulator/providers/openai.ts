import { layout, type SimAnswer } from '../answer.ts';
import {
  bearer,
  failureResponse,
  handleItem,
  handlePrompt,
  json,
  jobReadyAt,
  unixSeconds,
  type SimContext,
  type SimRequest,
  type SimResponse,
} from '../sim-context.ts';
import { simId } from '../rng.ts';
import type { SimJob } from '../state.ts';
import { arr, obj, s, textOf } from './read.ts';

/**
 * OpenAI under /openai/v1: Responses API with the web search tool, Files and
 * Batches, close enough for the official `openai` SDK.
 */

const PROVIDER = 'openai';

export function openaiError(status: number, message: string): unknown {
  const type =
    status === 429
      ? 'requests'
      : status >= 500
        ? 'server_error'
        : status === 401
          ? 'invalid_request_error'
          : 'invalid_request_error';
  const code = status === 429 ? 'rate_limit_exceeded' : status === 401 ? 'invalid_api_key' : null;
  return { error: { message, type, param: null, code } };
}

/** OpenAI tags the links it cites with its own utm_source. */
function withUtm(url: string): string {
  return `${url}${url.includes('?') ? '&' : '?'}utm_source=openai`;
}

interface Asked {
  model: string;
  prompt: string;
  system: string | null;
  country: string | null;
}

function readResponsesBody(body: unknown): Asked {
  const b = obj(body);
  const input = b.input;
  let prompt = '';
  const system: string[] = [];
  if (typeof input === 'string') prompt = input;
  for (const item of arr(input)) {
    const m = obj(item);
    const text = textOf(m.content);
    if (m.role === 'system' || m.role === 'developer') system.push(text);
    else if (m.role === 'user' || m.type === 'message') prompt = text;
  }
  if (s(b.instructions)) system.unshift(s(b.instructions) as string);
  const tool = arr(b.tools)
    .map(obj)
    .find((t) => String(t.type ?? '').startsWith('web_search'));
  const loc = obj(tool?.user_location);
  return {
    model: s(b.model) ?? 'gpt-5-mini',
    prompt,
    system: system.length > 0 ? system.join('\n') : null,
    country: s(loc.country) ?? null,
  };
}

/** A Responses API object: web_search_call items, then one message whose text carries url_citation annotations. */
export function responseObject(ctx: SimContext, asked: Asked, answer: SimAnswer, n: number): Record<string, unknown> {
  const laid = layout(answer, (block) =>
    block.cites
      .map((i) => answer.sources[i])
      .filter((src) => src !== undefined)
      .map((src) => ` ([${src.domain}](${withUtm(src.url)}))`)
      .join(''),
  );
  const annotations: Record<string, unknown>[] = [];
  for (const b of laid.blocks) {
    let cursor = b.end;
    for (const i of b.block.cites) {
      const src = answer.sources[i];
      if (!src) continue;
      const link = ` ([${src.domain}](${withUtm(src.url)}))`;
      annotations.push({
        type: 'url_citation',
        start_index: cursor + 1,
        end_index: cursor + link.length,
        url: withUtm(src.url),
        title: src.title,
      });
      cursor += link.length;
    }
  }
  const created = unixSeconds();
  const searches = answer.searches.map((query, i) => ({
    type: 'web_search_call',
    id: simId('ws_', n * 10 + i, ctx.seed),
    status: 'completed',
    action: {
      type: 'search',
      query,
      queries: [query],
      sources: i === 0 ? answer.sources.map((src) => ({ type: 'url', url: src.url })) : [],
    },
  }));
  const outputTokens = Math.ceil(laid.text.length / 4);
  return {
    id: simId('resp_', n, ctx.seed),
    object: 'response',
    created_at: created,
    status: 'completed',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: asked.system,
    max_output_tokens: null,
    model: asked.model,
    output: [
      ...searches,
      {
        type: 'message',
        id: simId('msg_', n, ctx.seed),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: laid.text, annotations, logprobs: [] }],
      },
    ],
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    store: true,
    temperature: 1,
    text: { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: 'auto',
    tools: [
      {
        type: 'web_search',
        search_context_size: 'medium',
        user_location: asked.country
          ? { type: 'approximate', country: asked.country, city: null, region: null, timezone: null }
          : null,
      },
    ],
    top_p: 1,
    truncation: 'disabled',
    usage: {
      input_tokens: Math.ceil(asked.prompt.length / 4) + 300,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: Math.ceil(asked.prompt.length / 4) + 300 + outputTokens,
    },
    user: null,
    metadata: {},
  };
}

interface BatchData {
  endpoint: string;
  inputFileId: string;
  completionWindow: string;
  metadata: unknown;
  lines: { custom_id: string; body: unknown }[];
  invalid: string | null;
}

export async function openaiRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (!bearer(req)) return json(401, openaiError(401, "You didn't provide an API key (simulated)"));
  const { method, path } = req;

  if (method === 'POST' && path === '/responses') {
    const asked = readResponsesBody(req.json);
    if (!asked.prompt) return json(400, openaiError(400, "Missing required parameter: 'input'."));
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: PROVIDER,
      model: asked.model,
      prompt: asked.prompt,
      system: asked.system,
      location: asked.country,
      language: null,
    });
    if (failure) return failureResponse(failure, openaiError);
    return json(200, responseObject(ctx, asked, answer, ctx.state.nextId()), {
      'x-request-id': `req_${ctx.state.nextId()}`,
    });
  }

  if (method === 'POST' && path === '/files') {
    const contentType = String(req.headers['content-type'] ?? '');
    const form = await new Request('http://sim/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(req.raw),
    })
      .formData()
      .catch(() => null);
    const file = form?.get('file');
    if (!form || !file || typeof file === 'string')
      return json(400, openaiError(400, "Missing required parameter: 'file'."));
    const id = simId('file-', ctx.state.nextId(), ctx.seed);
    const content = await file.text();
    const record = {
      id,
      filename: file.name || 'upload.jsonl',
      purpose: String(form.get('purpose') ?? 'batch'),
      content,
      createdAt: Date.now(),
    };
    ctx.state.files.set(id, record);
    return json(200, fileObject(record));
  }

  const fileMatch = /^\/files\/([^/]+)(\/content)?$/.exec(path);
  if (method === 'GET' && fileMatch) {
    const record = ctx.state.files.get(fileMatch[1] ?? '');
    if (!record) return json(404, openaiError(404, `No such File object: ${fileMatch[1]}`));
    if (fileMatch[2])
      return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: record.content };
    return json(200, fileObject(record));
  }

  if (method === 'POST' && path === '/batches') {
    const b = obj(req.json);
    const inputFileId = s(b.input_file_id) ?? '';
    const file = ctx.state.files.get(inputFileId);
    if (!file) return json(404, openaiError(404, `No such File object: ${inputFileId}`));
    const endpoint = s(b.endpoint) ?? '';
    if (endpoint !== '/v1/responses') return json(400, openaiError(400, 'The simulator batches /v1/responses only'));
    const lines: BatchData['lines'] = [];
    let invalid: string | null = null;
    file.content.split('\n').forEach((line, i) => {
      if (!line.trim()) return;
      try {
        const parsed = obj(JSON.parse(line));
        lines.push({ custom_id: s(parsed.custom_id) ?? `line-${i + 1}`, body: parsed.body });
      } catch {
        invalid = `Line ${i + 1} is not valid JSON`;
      }
    });
    const id = simId('batch_', ctx.state.nextId(), ctx.seed);
    const prompts = lines.map((l) => readResponsesBody(l.body).prompt);
    const job: SimJob<BatchData> = {
      id,
      provider: PROVIDER,
      createdAt: Date.now(),
      readyAt: jobReadyAt(ctx, PROVIDER, prompts),
      cancelled: false,
      data: {
        endpoint,
        inputFileId,
        completionWindow: s(b.completion_window) ?? '24h',
        metadata: b.metadata ?? null,
        lines,
        invalid,
      },
    };
    ctx.state.jobs.set(id, job);
    return json(200, batchObject(ctx, req, job));
  }

  const batchMatch = /^\/batches\/([^/]+)(\/cancel)?$/.exec(path);
  if (batchMatch) {
    const job = ctx.state.jobs.get(batchMatch[1] ?? '') as SimJob<BatchData> | undefined;
    if (!job || job.provider !== PROVIDER)
      return json(404, openaiError(404, `No batch found with id '${batchMatch[1]}'.`));
    if (method === 'POST' && batchMatch[2]) job.cancelled = true;
    else if (method !== 'GET' || batchMatch[2]) return json(405, openaiError(405, 'Method not allowed'));
    return json(200, batchObject(ctx, req, job));
  }

  return json(404, openaiError(404, `Unknown request URL: ${method} /v1${path}`));
}

function fileObject(f: { id: string; filename: string; purpose: string; content: string; createdAt: number }) {
  return {
    id: f.id,
    object: 'file',
    bytes: Buffer.byteLength(f.content),
    created_at: unixSeconds(f.createdAt),
    filename: f.filename,
    purpose: f.purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
}

function batchObject(ctx: SimContext, req: SimRequest, job: SimJob<BatchData>): Record<string, unknown> {
  const now = Date.now();
  const ready = now >= job.readyAt;
  let status = 'in_progress';
  let outputFileId: string | null = null;
  let errorFileId: string | null = null;
  let counts = { total: job.data.lines.length, completed: 0, failed: 0 };
  if (job.data.invalid) status = 'failed';
  else if (job.cancelled && !job.output) status = 'cancelled';
  else if (ready) {
    job.output ??= runBatch(ctx, req, job);
    const out = job.output as {
      outputFileId: string | null;
      errorFileId: string | null;
      completed: number;
      failed: number;
    };
    status = 'completed';
    outputFileId = out.outputFileId;
    errorFileId = out.errorFileId;
    counts = { total: job.data.lines.length, completed: out.completed, failed: out.failed };
  }
  return {
    id: job.id,
    object: 'batch',
    endpoint: job.data.endpoint,
    errors: job.data.invalid
      ? { object: 'list', data: [{ code: 'invalid_json_line', message: job.data.invalid, param: null, line: null }] }
      : null,
    input_file_id: job.data.inputFileId,
    completion_window: job.data.completionWindow,
    status,
    output_file_id: outputFileId,
    error_file_id: errorFileId,
    created_at: unixSeconds(job.createdAt),
    in_progress_at: unixSeconds(job.createdAt),
    expires_at: unixSeconds(job.createdAt + 24 * 3600_000),
    finalizing_at: status === 'completed' ? unixSeconds(job.readyAt) : null,
    completed_at: status === 'completed' ? unixSeconds(job.readyAt) : null,
    failed_at: status === 'failed' ? unixSeconds(job.createdAt) : null,
    expired_at: null,
    cancelling_at: job.cancelled ? unixSeconds(now) : null,
    cancelled_at: status === 'cancelled' ? unixSeconds(now) : null,
    request_counts: counts,
    metadata: job.data.metadata,
  };
}

function runBatch(ctx: SimContext, req: SimRequest, job: SimJob<BatchData>) {
  const ok: string[] = [];
  const failed: string[] = [];
  for (const line of job.data.lines) {
    const asked = readResponsesBody(line.body);
    const { answer, failure } = handleItem(
      ctx,
      { ...req, path: '/batches' },
      {
        provider: PROVIDER,
        model: asked.model,
        prompt: asked.prompt,
        system: asked.system,
        location: asked.country,
        language: null,
      },
    );
    const reqId = `req_${ctx.state.nextId()}`;
    const id = simId('batch_req_', ctx.state.nextId(), ctx.seed);
    if (failure) {
      failed.push(
        JSON.stringify({
          id,
          custom_id: line.custom_id,
          response: {
            status_code: failure.status,
            request_id: reqId,
            body: openaiError(failure.status, 'The request failed (simulated)'),
          },
          error: null,
        }),
      );
    } else {
      ok.push(
        JSON.stringify({
          id,
          custom_id: line.custom_id,
          response: {
            status_code: 200,
            request_id: reqId,
            body: responseObject(ctx, asked, answer, ctx.state.nextId()),
          },
          error: null,
        }),
      );
    }
  }
  const save = (lines: string[]): string | null => {
    if (lines.length === 0) return null;
    const id = simId('file-', ctx.state.nextId(), ctx.seed);
    ctx.state.files.set(id, {
      id,
      filename: 'batch_output.jsonl',
      purpose: 'batch_output',
      content: `${lines.join('\n')}\n`,
      createdAt: Date.now(),
    });
    return id;
  };
  return { outputFileId: save(ok), errorFileId: save(failed), completed: ok.length, failed: failed.length };
}
