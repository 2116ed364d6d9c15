import type { GenerateContentConfig, GoogleGenAI } from '@google/genai';
import { AssistantError } from '../assistant-error.ts';
import { classifyError } from '../classify.ts';
import { statusCheckingFetch } from '../http.ts';
import { systemInstruction } from '../instructions.ts';
import { isObject, num, str } from '../parse-helpers.ts';
import { parseGeminiResponse } from '../parsers/gemini.ts';
import type { Target } from '../targets.ts';
import type { BatchAdapter, ProviderAdapter, ResolvedAsk } from '../types.ts';

const PROVIDER = 'gemini';
const GRPC_TO_HTTP: Record<number, number> = {
  3: 400,
  4: 504,
  5: 404,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  13: 500,
  14: 503,
  16: 401,
};

/**
 * Gemini: generateContent with the Google Search tool, and batch mode with
 * inlined requests. Google Search grounding has no location parameter, so
 * the location goes into the system instruction with persona and language.
 */
export function createGeminiAdapter(target: Target): ProviderAdapter & BatchAdapter {
  // The SDK is loaded on the first call, not by every process that can make one.
  let made: Promise<GoogleGenAI> | undefined;
  const sdk = () =>
    (made ??= import('@google/genai').then(
      ({ GoogleGenAI }) =>
        new GoogleGenAI({
          apiKey: target.apiKey,
          vertexai: false,
          httpOptions: { baseUrl: target.baseUrl, fetch: statusCheckingFetch(PROVIDER) },
        }),
    ));

  return {
    async ask(request, { signal, timeoutMs }) {
      const ai = await sdk();
      const response = await ai.models.generateContent({
        model: request.model,
        contents: request.prompt,
        config: { ...generateConfig(request), abortSignal: signal, httpOptions: { timeout: timeoutMs } },
      });
      const raw = wireJson(response);
      return { parsed: parseGeminiResponse(raw), raw };
    },

    async submit(items, { signal, timeoutMs }) {
      const ai = await sdk();
      const job = await ai.batches.create({
        model: items[0]?.request.model ?? '',
        src: items.map(({ id, request }) => ({
          contents: [{ role: 'user', parts: [{ text: request.prompt }] }],
          config: generateConfig(request),
          metadata: { key: id },
        })),
        config: { displayName: `sightline-${Date.now()}`, abortSignal: signal, httpOptions: { timeout: timeoutMs } },
      });
      if (!job.name)
        throw AssistantError.permanent('malformed_response', 'Gemini did not name the batch it created', {
          provider: PROVIDER,
        });
      return job.name;
    },

    async poll(jobId, ids, { signal, timeoutMs }) {
      const ai = await sdk();
      const job = await ai.batches.get({
        name: jobId,
        config: { abortSignal: signal, httpOptions: { timeout: timeoutMs } },
      });
      const state = job.state ?? 'JOB_STATE_UNSPECIFIED';
      if (
        state === 'JOB_STATE_PENDING' ||
        state === 'JOB_STATE_RUNNING' ||
        state === 'JOB_STATE_QUEUED' ||
        state === 'JOB_STATE_UNSPECIFIED'
      ) {
        return { done: false, status: state };
      }
      const responses = job.dest?.inlinedResponses ?? [];
      const byKey = new Map<string, unknown>();
      responses.forEach((r, i) => {
        const key = isObject(r.metadata) ? str(r.metadata.key) : undefined;
        byKey.set(key ?? ids[i] ?? `#${i}`, r);
      });
      return { done: true, status: state, results: ids.map((id) => geminiInlinedResult(id, byKey.get(id), state)) };
    },
  };
}

export function generateConfig(request: ResolvedAsk): GenerateContentConfig {
  const system = systemInstruction(request, { includeLocation: true });
  return { tools: [{ googleSearch: {} }], ...(system ? { systemInstruction: system } : {}) };
}

/** The SDK returns class instances with an extra `sdkHttpResponse`; keep the wire JSON only. */
function wireJson(value: unknown): unknown {
  const json = JSON.parse(JSON.stringify(value)) as unknown;
  if (isObject(json)) delete json.sdkHttpResponse;
  return json;
}

export function geminiInlinedResult(id: string, item: unknown, state: string) {
  if (!isObject(item)) {
    const why =
      state === 'JOB_STATE_SUCCEEDED'
        ? 'The batch has no result for this prompt'
        : `The batch ended (${state}) before this prompt was answered`;
    return { id, ok: false as const, error: AssistantError.retryable('batch_item', why, { provider: PROVIDER }) };
  }
  if (isObject(item.error)) {
    // Item errors are google.rpc.Status: gRPC codes, not HTTP statuses.
    const code = num(item.error.code) ?? 13;
    const status = code >= 100 ? code : (GRPC_TO_HTTP[code] ?? 500);
    return {
      id,
      ok: false as const,
      error: AssistantError.fromStatus(status, str(item.error.message) ?? 'the request failed', { provider: PROVIDER }),
    };
  }
  try {
    const raw = wireJson(item.response);
    return { id, ok: true as const, parsed: parseGeminiResponse(raw), raw };
  } catch (err) {
    return { id, ok: false as const, error: classifyError(err, PROVIDER) };
  }
}
