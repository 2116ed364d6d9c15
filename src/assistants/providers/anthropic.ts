import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { AssistantError } from '../assistant-error.ts';
import { classifyError } from '../classify.ts';
import { cappedFetch } from '../http.ts';
import { systemInstruction } from '../instructions.ts';
import { arrayOf, isObject, str } from '../parse-helpers.ts';
import { parseAnthropicMessage } from '../parsers/anthropic.ts';
import type { Target } from '../targets.ts';
import type { BatchAdapter, ProviderAdapter, ResolvedAsk } from '../types.ts';

const PROVIDER = 'anthropic';
const MAX_TOKENS = 4096;
/** A long server-tool turn may pause (stop_reason "pause_turn"); it is resumed this many times at most. */
const MAX_CONTINUATIONS = 2;

/**
 * Anthropic: Messages API with the web search server tool (location as the
 * tool's approximate `user_location`), and the Message Batches API.
 */
export function createAnthropicAdapter(target: Target): ProviderAdapter & BatchAdapter {
  // The SDK (some 250 modules) is loaded on the first call, not by every process that can make one.
  let made: Promise<Anthropic> | undefined;
  const sdk = () =>
    (made ??= import('@anthropic-ai/sdk').then(
      ({ default: Anthropic }) =>
        new Anthropic({ apiKey: target.apiKey, baseURL: target.baseUrl, maxRetries: 0, fetch: cappedFetch(PROVIDER) }),
    ));

  return {
    async ask(request, { signal, timeoutMs }) {
      const client = await sdk();
      const params = messageParams(request);
      let message: unknown = await client.messages.create(params, { signal, timeout: timeoutMs, maxRetries: 0 });
      let content = isObject(message) ? arrayOf(message.content) : [];
      for (let i = 0; i < MAX_CONTINUATIONS && isObject(message) && message.stop_reason === 'pause_turn'; i++) {
        // The API resumes a paused turn when its partial reply is sent back as the assistant turn.
        const resumed = {
          ...params,
          messages: [
            ...params.messages,
            { role: 'assistant' as const, content: content as Anthropic.ContentBlockParam[] },
          ],
        };
        message = await client.messages.create(resumed, { signal, timeout: timeoutMs, maxRetries: 0 });
        content = [...content, ...(isObject(message) ? arrayOf(message.content) : [])];
      }
      const raw = isObject(message) ? { ...message, content } : message;
      return { parsed: parseAnthropicMessage(raw), raw };
    },

    async submit(items, { signal, timeoutMs }) {
      const client = await sdk();
      const batch = await client.messages.batches.create(
        { requests: items.map(({ id, request }) => ({ custom_id: id, params: messageParams(request) })) },
        { signal, timeout: timeoutMs, maxRetries: 0 },
      );
      return batch.id;
    },

    async poll(jobId, ids, { signal, timeoutMs }) {
      const client = await sdk();
      const opts = { signal, timeout: timeoutMs, maxRetries: 0 };
      const batch = await client.messages.batches.retrieve(jobId, {}, opts);
      if (batch.processing_status !== 'ended') return { done: false, status: batch.processing_status };
      const lines = new Map<string, unknown>();
      for await (const line of await client.messages.batches.results(jobId, {}, opts))
        lines.set(line.custom_id, line.result);
      return {
        done: true,
        status: batch.processing_status,
        results: ids.map((id) => anthropicBatchResult(id, lines.get(id))),
      };
    },
  };
}

export function messageParams(request: ResolvedAsk): MessageCreateParamsNonStreaming {
  const system = systemInstruction(request, { includeLocation: false });
  return {
    model: request.model,
    max_tokens: MAX_TOKENS,
    ...(system ? { system } : {}),
    messages: [{ role: 'user', content: request.prompt }],
    tools: [
      {
        type: 'web_search_20250305',
        name: 'web_search',
        max_uses: 5,
        ...(request.countryCode
          ? { user_location: { type: 'approximate' as const, country: request.countryCode } }
          : {}),
      },
    ],
  };
}

/** One results line's `result`: succeeded | errored | canceled | expired. */
export function anthropicBatchResult(id: string, result: unknown) {
  if (!isObject(result)) {
    return {
      id,
      ok: false as const,
      error: AssistantError.retryable('batch_item', 'The batch has no result for this prompt', { provider: PROVIDER }),
    };
  }
  if (result.type === 'succeeded') {
    try {
      return { id, ok: true as const, parsed: parseAnthropicMessage(result.message), raw: result.message };
    } catch (err) {
      return { id, ok: false as const, error: classifyError(err, PROVIDER) };
    }
  }
  if (result.type === 'errored') {
    const outer = isObject(result.error) ? result.error : {};
    const inner = isObject(outer.error) ? outer.error : outer;
    const type = str(inner.type) ?? 'api_error';
    const message = `${type}: ${str(inner.message) ?? 'the request failed'}`;
    const retryable = type === 'api_error' || type === 'overloaded_error' || type === 'rate_limit_error';
    return {
      id,
      ok: false as const,
      error: retryable
        ? AssistantError.retryable('batch_item', message, { provider: PROVIDER })
        : AssistantError.permanent('batch_item', message, { provider: PROVIDER }),
    };
  }
  return {
    id,
    ok: false as const,
    error: AssistantError.retryable('batch_item', `The batch request was ${str(result.type) ?? 'not run'}`, {
      provider: PROVIDER,
    }),
  };
}
