import { layout, type SimAnswer } from '../answer.ts';
import {
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
 * Gemini under /gemini: `v1beta/models/{model}:generateContent` with Google
 * Search grounding, and batch mode (`:batchGenerateContent`, `batches/{id}`)
 * with inlined requests, as `@google/genai` speaks them.
 */

const PROVIDER = 'gemini';
const STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function geminiError(status: number, message: string): unknown {
  return {
    error: { code: status, message, status: STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION') },
  };
}

interface Asked {
  model: string;
  prompt: string;
  system: string | null;
}

function readGenerateBody(body: unknown, model: string): Asked {
  const b = obj(body);
  const users = arr(b.contents)
    .map(obj)
    .filter((c) => c.role === undefined || c.role === 'user');
  const sys = b.systemInstruction ?? b.system_instruction;
  const system = typeof sys === 'string' ? sys : textOf(obj(sys).parts) || null;
  return { model: model.replace(/^models\//, ''), prompt: textOf(users.at(-1)?.parts), system };
}

/** Grounding chunk links are opaque redirects; the title carries the source domain. */
function redirect(url: string): string {
  return `https://vertexaisearch.cloud.google.com/grounding-api-redirect/${Buffer.from(url).toString('base64url')}`;
}

export function generateResponse(ctx: SimContext, asked: Asked, answer: SimAnswer, n: number): Record<string, unknown> {
  const laid = layout(answer);
  const byteOffset = (charIndex: number) => Buffer.byteLength(laid.text.slice(0, charIndex), 'utf8');
  const supports = laid.blocks
    .filter((b) => b.block.cites.length > 0)
    .map((b) => ({
      segment: { startIndex: byteOffset(b.start), endIndex: byteOffset(b.end), text: laid.text.slice(b.start, b.end) },
      groundingChunkIndices: b.block.cites,
      confidenceScores: b.block.cites.map(() => 0.9),
    }));
  const candidatesTokens = Math.ceil(laid.text.length / 4);
  const promptTokens = Math.ceil(asked.prompt.length / 4) + 8;
  return {
    candidates: [
      {
        content: { parts: laid.text ? [{ text: laid.text }] : [], role: 'model' },
        finishReason: 'STOP',
        index: 0,
        ...(answer.searches.length > 0 || answer.sources.length > 0
          ? {
              groundingMetadata: {
                webSearchQueries: answer.searches,
                searchEntryPoint: {
                  renderedContent: `<div class="container">${answer.searches.map((q) => `<a class="chip">${q.replace(/</g, '&lt;')}</a>`).join('')}</div>`,
                },
                groundingChunks: answer.sources.map((src) => ({ web: { uri: redirect(src.url), title: src.domain } })),
                groundingSupports: supports,
              },
            }
          : {}),
      },
    ],
    usageMetadata: {
      promptTokenCount: promptTokens,
      candidatesTokenCount: candidatesTokens,
      totalTokenCount: promptTokens + candidatesTokens,
      toolUsePromptTokenCount: 120 * answer.searches.length,
    },
    modelVersion: asked.model,
    responseId: simId('', n, ctx.seed),
  };
}

interface BatchData {
  model: string;
  displayName: string;
  items: { request: unknown; metadata: unknown }[];
}

export async function geminiRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (!header(req, 'x-goog-api-key') && !req.query.get('key'))
    return json(401, geminiError(401, "Method doesn't allow unregistered callers (simulated)"));
  const { method, path } = req;

  const call = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(generateContent|batchGenerateContent)$/.exec(path);
  if (method === 'POST' && call?.[2] === 'generateContent') {
    const asked = readGenerateBody(req.json, call[1] ?? '');
    if (!asked.prompt)
      return json(400, geminiError(400, '* GenerateContentRequest.contents: contents is not specified'));
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: PROVIDER,
      model: asked.model,
      prompt: asked.prompt,
      system: asked.system,
      location: null,
      language: null,
      countryName: countryFrom(asked.system),
    });
    if (failure) return failureResponse(failure, geminiError);
    return json(200, generateResponse(ctx, asked, answer, ctx.state.nextId()));
  }

  if (method === 'POST' && call?.[2] === 'batchGenerateContent') {
    const batch = obj(obj(req.json).batch);
    const items = arr(obj(obj(obj(batch.inputConfig).requests)).requests)
      .map(obj)
      .map((r) => ({ request: r.request, metadata: r.metadata ?? null }));
    if (items.length === 0) return json(400, geminiError(400, 'batch.input_config: inlined requests are required'));
    const model = (call[1] ?? '').replace(/^models\//, '');
    const id = `batches/${simId('', ctx.state.nextId(), ctx.seed)}`;
    const job: SimJob<BatchData> = {
      id,
      provider: PROVIDER,
      createdAt: Date.now(),
      readyAt: jobReadyAt(
        ctx,
        PROVIDER,
        items.map((i) => readGenerateBody(i.request, model).prompt),
      ),
      cancelled: false,
      data: { model, displayName: s(batch.displayName) ?? id, items },
    };
    ctx.state.jobs.set(id, job);
    return json(200, operation(ctx, req, job));
  }

  const batchMatch = /^\/v1(?:beta|alpha)?\/(batches\/[^/:]+)(:cancel)?$/.exec(path);
  if (batchMatch) {
    const job = ctx.state.jobs.get(batchMatch[1] ?? '') as SimJob<BatchData> | undefined;
    if (!job || job.provider !== PROVIDER) return json(404, geminiError(404, `Batch ${batchMatch[1]} not found`));
    if (method === 'POST' && batchMatch[2]) {
      job.cancelled = true;
      return json(200, {});
    }
    if (method === 'GET' && !batchMatch[2]) return json(200, operation(ctx, req, job));
    return json(405, geminiError(405, 'Method not allowed'));
  }

  return json(404, geminiError(404, `Not found: ${method} ${path}`));
}

/** Gemini's system instruction is where the adapter puts the location ("The person asking is in X."). */
function countryFrom(system: string | null): string | null {
  return /The person asking is in ([^.\n]+)\./.exec(system ?? '')?.[1] ?? null;
}

/** A batch is a long-running Operation whose metadata is the GenerateContentBatch. */
function operation(ctx: SimContext, req: SimRequest, job: SimJob<BatchData>): Record<string, unknown> {
  const done = job.cancelled || Date.now() >= job.readyAt;
  if (done && !job.output && !job.cancelled) {
    job.output = job.data.items.map((item) => {
      const asked = readGenerateBody(item.request, job.data.model);
      const { answer, failure } = handleItem(
        ctx,
        { ...req, path: `/v1beta/models/${job.data.model}:batchGenerateContent` },
        {
          provider: PROVIDER,
          model: asked.model,
          prompt: asked.prompt,
          system: asked.system,
          location: null,
          language: null,
          countryName: countryFrom(asked.system),
        },
      );
      const metadata = item.metadata ?? undefined;
      if (failure)
        return {
          ...(metadata ? { metadata } : {}),
          error: { code: grpcCode(failure.status), message: 'The request failed (simulated)' },
        };
      return { ...(metadata ? { metadata } : {}), response: generateResponse(ctx, asked, answer, ctx.state.nextId()) };
    });
  }
  const state = job.cancelled ? 'BATCH_STATE_CANCELLED' : done ? 'BATCH_STATE_SUCCEEDED' : 'BATCH_STATE_PENDING';
  const output = done && job.output ? { inlinedResponses: { inlinedResponses: job.output } } : undefined;
  const responses = (job.output as { error?: unknown }[] | undefined) ?? [];
  const metadata = {
    '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatch',
    model: `models/${job.data.model}`,
    displayName: job.data.displayName,
    ...(output ? { output } : {}),
    createTime: new Date(job.createdAt).toISOString(),
    ...(done ? { endTime: new Date(Math.min(Date.now(), job.readyAt)).toISOString() } : {}),
    updateTime: new Date().toISOString(),
    batchStats: {
      requestCount: String(job.data.items.length),
      ...(done
        ? {
            successfulRequestCount: String(responses.filter((r) => !r.error).length),
            failedRequestCount: String(responses.filter((r) => r.error).length),
          }
        : { pendingRequestCount: String(job.data.items.length) }),
    },
    state,
    name: job.id,
  };
  return {
    name: job.id,
    metadata,
    ...(done
      ? {
          done: true,
          response: {
            '@type': 'type.googleapis.com/google.ai.generativelanguage.v1main.GenerateContentBatchOutput',
            ...(output ?? {}),
          },
        }
      : {}),
  };
}

function grpcCode(status: number): number {
  return status === 429
    ? 8
    : status === 400
      ? 3
      : status === 503
        ? 14
        : status === 504
          ? 4
          : status === 401
            ? 16
            : status === 404
              ? 5
              : 13;
}
