import { layout } from '../answer.ts';
import {
  bearer,
  failureResponse,
  handlePrompt,
  json,
  unixSeconds,
  type SimContext,
  type SimRequest,
  type SimResponse,
} from '../sim-context.ts';
import { simId } from '../rng.ts';
import { arr, obj, s, textOf } from './read.ts';

/** Perplexity under /perplexity: Sonar chat completions with `citations` and `search_results`. */

const PROVIDER = 'perplexity';

export function perplexityError(status: number, message: string): unknown {
  return {
    error: {
      message,
      type: status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request',
      code: status,
    },
  };
}

export async function perplexityRoute(ctx: SimContext, req: SimRequest): Promise<SimResponse> {
  if (!bearer(req)) return json(401, perplexityError(401, 'Missing API key (simulated)'));
  if (req.method !== 'POST' || req.path !== '/chat/completions')
    return json(404, perplexityError(404, `Not found: ${req.method} ${req.path}`));

  const b = obj(req.json);
  const messages = arr(b.messages).map(obj);
  const prompt = textOf(messages.filter((m) => m.role === 'user').at(-1)?.content);
  const system =
    messages
      .filter((m) => m.role === 'system')
      .map((m) => textOf(m.content))
      .join('\n') || null;
  const model = s(b.model) ?? 'sonar';
  const country = s(obj(obj(b.web_search_options).user_location).country) ?? null;
  if (!prompt) return json(400, perplexityError(400, 'messages: a user message is required'));

  const { answer, failure } = await handlePrompt(ctx, req, {
    provider: PROVIDER,
    model,
    prompt,
    system,
    location: country,
    language: null,
  });
  if (failure) return failureResponse(failure, perplexityError);

  // Sources are numbered in the order the text first cites them, as Sonar does.
  const order: number[] = [];
  for (const block of answer.blocks) for (const i of block.cites) if (!order.includes(i)) order.push(i);
  answer.sources.forEach((_, i) => (order.includes(i) ? undefined : order.push(i)));
  const laid = layout(answer, (block) => block.cites.map((i) => `[${order.indexOf(i) + 1}]`).join(''));
  const sources = order.map((i) => answer.sources[i]).filter((src) => src !== undefined);
  const completionTokens = Math.ceil(laid.text.length / 4);
  const promptTokens = Math.ceil(prompt.length / 4) + 10;
  const n = ctx.state.nextId();
  return json(200, {
    id: simId('', n, ctx.seed),
    model,
    created: unixSeconds(),
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
      search_context_size: 'low',
    },
    citations: sources.map((src) => src.url),
    search_results: sources.map((src) => ({
      title: src.title,
      url: src.url,
      date: '2025-04-30',
      last_updated: '2025-05-02',
      snippet: src.snippet,
    })),
    object: 'chat.completion',
    choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: laid.text } }],
  });
}
