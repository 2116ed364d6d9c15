import { layout, type SimAnswer } from '../answer.ts';
import {
  bearer,
  handleItem,
  handlePrompt,
  failureResponse,
  json,
  jobReadyAt,
  type SimContext,
  type SimRequest,
  type SimResponse,
} from '../sim-context.ts';
import { simId } from '../rng.ts';
import type { SimJob } from '../state.ts';
import { arr, obj, s } from './read.ts';

/**
 * The app-answer gateway under /app (our own format, docs/assistants.md):
 * `POST /v1/answers` answers at once; `POST /v1/jobs` queues prompts for the
 * `*-queue` models and `GET /v1/jobs/{id}` reports them when ready.
 */

export function appError(_status: number, message: string): unknown {
  return { error: message };
}

/** chatgpt-* models belong to openai, gemini-* to gemini (CONTRACT.md). */
function providerOf(model: string): string {
  return model.startsWith('gemini') ? 'gemini' : 'openai';
}

interface AppAsk {
  id?: string;
  model: string;
  prompt: string;
  context: string | null;
  country: string | null;
  location: string | null;
  language: string | null;
}

function readAsk(body: unknown, fallbackModel = 'chatgpt-app'): AppAsk {
  const b = obj(body);
  return {
    id: s(b.id),
    model: s(b.model) ?? fallbackModel,
    prompt: s(b.prompt) ?? '',
    context: s(b.context) ?? null,
    country: s(b.country) ?? null,
    location: s(b.location) ?? null,
    language: s(b.language) ?? null,
  };
}

export function appAnswer(ctx: SimContext, ask: AppAsk, answer: SimAnswer, n: number): Record<string, unknown> {
  const laid = layout(answer);
  const citations = laid.blocks.flatMap((b) =>
    b.block.cites
      .map((i) => answer.sources[i])
      .filter((src) => src !== undefined)
      .map((src) => ({
        url: src.url,
        title: src.title,
        startIndex: b.start,
        endIndex: b.end,
        citedText: laid.text.slice(b.start, b.end),
      })),
  );
  return {
    id: simId('ans_', n, ctx.seed),
    object: 'app.answer',
    model: ask.model,
    status: 'completed',
    createdAt: new Date().toISOString(),
    answer: { text: laid.text, citations, searches: answer.searches },
    usage: { answerChars: laid.text.length },
  };
}

interface QueueData {
  model: string;
  requests: AppAsk[];
}

export async function appRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (!bearer(req)) return json(401, appError(401, 'Send Authorization: Bearer <APP_GATEWAY_API_KEY> (simulated)'));
  const { method, path } = req;

  if (method === 'POST' && path === '/v1/answers') {
    const ask = readAsk(req.json);
    if (!ask.prompt) return json(400, appError(400, '`prompt` is required'));
    const system = ask.context;
    const { answer, failure } = await handlePrompt(ctx, req, {
      provider: providerOf(ask.model),
      model: ask.model,
      prompt: ask.prompt,
      system,
      location: ask.country ?? ask.location,
      language: ask.language,
      countryName: ask.location,
    });
    if (failure) return failureResponse(failure, appError);
    return json(200, appAnswer(ctx, ask, answer, ctx.state.nextId()));
  }

  if (method === 'POST' && path === '/v1/jobs') {
    const b = obj(req.json);
    const model = s(b.model) ?? 'chatgpt-app-queue';
    const requests = arr(b.requests).map((r, i) => ({ ...readAsk(r, model), id: s(obj(r).id) ?? `r${i + 1}` }));
    if (requests.length === 0 || requests.some((r) => !r.prompt))
      return json(400, appError(400, '`requests` must list prompts, each with `prompt`'));
    const id = simId('job_', ctx.state.nextId(), ctx.seed);
    const job: SimJob<QueueData> = {
      id,
      provider: providerOf(model),
      createdAt: Date.now(),
      readyAt: jobReadyAt(
        ctx,
        providerOf(model),
        requests.map((r) => r.prompt),
      ),
      cancelled: false,
      data: { model, requests },
    };
    ctx.state.jobs.set(id, job);
    return json(202, jobObject(ctx, req, job));
  }

  const m = /^\/v1\/jobs\/([^/]+)$/.exec(path);
  if (m && method === 'GET') {
    const job = ctx.state.jobs.get(m[1] ?? '') as SimJob<QueueData> | undefined;
    if (!job || !job.id.startsWith('job_')) return json(404, appError(404, `No job ${m[1]}`));
    return json(200, jobObject(ctx, req, job));
  }

  return json(404, appError(404, `Not found: ${method} ${path}`));
}

function jobObject(ctx: SimContext, req: SimRequest, job: SimJob<QueueData>): Record<string, unknown> {
  const now = Date.now();
  const ready = now >= job.readyAt;
  if (ready && !job.output) {
    job.output = job.data.requests.map((r) => {
      const { answer, failure } = handleItem(
        ctx,
        { ...req, path: '/v1/jobs' },
        {
          provider: job.provider,
          model: job.data.model,
          prompt: r.prompt,
          system: r.context,
          location: r.country ?? r.location,
          language: r.language,
          countryName: r.location,
        },
      );
      if (failure)
        return {
          id: r.id,
          status: 'failed',
          error: {
            message: `The app answer failed (simulated ${failure.status})`,
            retryable: failure.status === 429 || failure.status >= 500,
          },
        };
      return { ...appAnswer(ctx, { ...r, model: job.data.model }, answer, ctx.state.nextId()), id: r.id };
    });
  }
  const status = ready ? 'completed' : now - job.createdAt > (job.readyAt - job.createdAt) / 2 ? 'running' : 'queued';
  return {
    id: job.id,
    object: 'app.job',
    model: job.data.model,
    status,
    createdAt: new Date(job.createdAt).toISOString(),
    ...(ready
      ? { completedAt: new Date(job.readyAt).toISOString() }
      : { estimatedReadyAt: new Date(job.readyAt).toISOString() }),
    total: job.data.requests.length,
    ...(ready ? { results: job.output } : {}),
  };
}
