import type OpenAI from 'openai';
import type { toFile } from 'openai';
import type { ResponseCreateParamsNonStreaming } from 'openai/resources/responses/responses';
import { AssistantError } from '../assistant-error.ts';
import { classifyError } from '../classify.ts';
import { cappedFetch, requestJson } from '../http.ts';
import { systemInstruction } from '../instructions.ts';
import { isObject, str } from '../parse-helpers.ts';
import { parseOpenAIResponse } from '../parsers/openai.ts';
import type { Target } from '../targets.ts';
import type { BatchAdapter, ProviderAdapter, ResolvedAsk } from '../types.ts';

const PROVIDER = 'openai';

/**
 * OpenAI: Responses API with the hosted web search tool (location as the
 * tool's approximate `user_location`), and the Batch API over an uploaded
 * JSONL file of `/v1/responses` requests.
 */
export function createOpenAIAdapter(target: Target): ProviderAdapter & BatchAdapter {
  // The SDK (some 150 modules) is loaded on the first call, not by every process that can make one.
  let made:
    | Promise<{ client: OpenAI; toFile: typeof toFile; baseUrl: string; authHeaders: Record<string, string> }>
    | undefined;
  const sdk = () =>
    (made ??= import('openai').then(({ default: OpenAI, toFile: upload }) => {
      const client = new OpenAI({
        apiKey: target.apiKey,
        baseURL: target.baseUrl,
        maxRetries: 0,
        fetch: cappedFetch(PROVIDER),
      });
      const authHeaders: Record<string, string> = {
        authorization: `Bearer ${target.apiKey}`,
        ...(client.organization ? { 'openai-organization': client.organization } : {}),
        ...(client.project ? { 'openai-project': client.project } : {}),
      };
      return { client, toFile: upload, baseUrl: client.baseURL.replace(/\/+$/, ''), authHeaders };
    }));

  return {
    async ask(request, { signal }) {
      // One answer is one JSON POST: sent over ./http.ts rather than through the SDK, whose request
      // building and logging were about a third of a scan's CPU per answer (bench/README.md "scan").
      // The headers are the ones the SDK sends for this client (organization and project from its env).
      const { baseUrl, authHeaders } = await sdk();
      const raw = await requestJson(
        { method: 'POST', url: `${baseUrl}/responses`, headers: authHeaders, body: responseParams(request), signal },
        PROVIDER,
      );
      return { parsed: parseOpenAIResponse(raw), raw };
    },

    async submit(items, { signal, timeoutMs }) {
      const { client, toFile } = await sdk();
      const jsonl = items
        .map(({ id, request }) =>
          JSON.stringify({ custom_id: id, method: 'POST', url: '/v1/responses', body: responseParams(request) }),
        )
        .join('\n');
      const file = await client.files.create(
        {
          file: await toFile(Buffer.from(`${jsonl}\n`, 'utf8'), 'sightline-batch.jsonl', { type: 'application/jsonl' }),
          purpose: 'batch',
        },
        { signal, timeout: timeoutMs, maxRetries: 0 },
      );
      const batch = await client.batches.create(
        {
          input_file_id: file.id,
          endpoint: '/v1/responses',
          completion_window: '24h',
          metadata: { source: 'sightline' },
        },
        { signal, timeout: timeoutMs, maxRetries: 0 },
      );
      return batch.id;
    },

    async poll(jobId, ids, { signal, timeoutMs }) {
      const opts = { signal, timeout: timeoutMs, maxRetries: 0 };
      const { client } = await sdk();
      const batch = await client.batches.retrieve(jobId, opts);
      if (!['completed', 'failed', 'expired', 'cancelled'].includes(batch.status))
        return { done: false, status: batch.status };
      if (batch.status === 'failed') {
        const why =
          batch.errors?.data
            ?.map((e) => e.message)
            .filter(Boolean)
            .join('; ') || 'the batch failed validation';
        return {
          done: true,
          status: batch.status,
          results: ids.map((id) => ({
            id,
            ok: false as const,
            error: AssistantError.permanent('batch_item', why, { provider: 'openai' }),
          })),
        };
      }
      const lines = new Map<string, unknown>();
      for (const fileId of [batch.output_file_id, batch.error_file_id]) {
        if (!fileId) continue;
        const content = await (await client.files.content(fileId, opts)).text();
        for (const line of content.split('\n')) {
          if (!line.trim()) continue;
          const parsed = safeParse(line);
          const customId = isObject(parsed) ? str(parsed.custom_id) : undefined;
          if (customId) lines.set(customId, parsed);
        }
      }
      return {
        done: true,
        status: batch.status,
        results: ids.map((id) => openaiBatchLine(id, lines.get(id), batch.status)),
      };
    },
  };
}

export function responseParams(request: ResolvedAsk): ResponseCreateParamsNonStreaming {
  const instructions = systemInstruction(request, { includeLocation: false });
  return {
    model: request.model,
    input: request.prompt,
    ...(instructions ? { instructions } : {}),
    tools: [
      {
        type: 'web_search',
        ...(request.countryCode ? { user_location: { type: 'approximate', country: request.countryCode } } : {}),
      },
    ],
    include: ['web_search_call.action.sources'],
  };
}

function safeParse(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return null;
  }
}

/** One output-file line: `{custom_id, response: {status_code, body}, error}`. */
export function openaiBatchLine(id: string, line: unknown, batchStatus: string) {
  if (!isObject(line)) {
    const why =
      batchStatus === 'completed'
        ? 'The batch has no result for this prompt'
        : `The batch ended (${batchStatus}) before this prompt was answered`;
    return { id, ok: false as const, error: AssistantError.retryable('batch_item', why, { provider: 'openai' }) };
  }
  const response = isObject(line.response) ? line.response : null;
  const status = typeof response?.status_code === 'number' ? response.status_code : null;
  if (response && status !== null && status >= 200 && status < 300) {
    try {
      return { id, ok: true as const, parsed: parseOpenAIResponse(response.body), raw: response.body };
    } catch (err) {
      return { id, ok: false as const, error: classifyError(err, 'openai') };
    }
  }
  const body =
    isObject(response?.body) && isObject(response.body.error)
      ? response.body.error
      : isObject(line.error)
        ? line.error
        : {};
  const message = str(body.message) ?? str(body.code) ?? 'The batch request failed';
  if (status !== null)
    return { id, ok: false as const, error: AssistantError.fromStatus(status, message, { provider: 'openai' }) };
  const retryable = str(body.code) === 'batch_expired' || str(body.code) === 'batch_cancelled';
  return {
    id,
    ok: false as const,
    error: retryable
      ? AssistantError.retryable('batch_item', message, { provider: 'openai' })
      : AssistantError.permanent('batch_item', message, { provider: 'openai' }),
  };
}
