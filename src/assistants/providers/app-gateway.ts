import { AssistantError } from '../assistant-error.ts';
import { classifyError } from '../classify.ts';
import { requestJson } from '../http.ts';
import { arrayOf, isObject, objectOf, str } from '../parse-helpers.ts';
import { parseAppAnswer } from '../parsers/app.ts';
import type { Target } from '../targets.ts';
import type { BatchAdapter, ProviderAdapter, ResolvedAsk } from '../types.ts';

/**
 * The app-answer gateway (`chatgpt-app`, `gemini-app` and their `-queue`
 * variants): answers as the consumer apps give them. Its wire format is
 * ours, documented in docs/assistants.md: `POST /v1/answers` answers at
 * once; `POST /v1/jobs` queues prompts and `GET /v1/jobs/{id}` reports them.
 */
export function createAppGatewayAdapter(target: Target, provider: string): ProviderAdapter & BatchAdapter {
  const headers = { authorization: `Bearer ${target.apiKey}` };

  return {
    async ask(request, { signal }) {
      const raw = await requestJson(
        { method: 'POST', url: `${target.baseUrl}/v1/answers`, headers, body: appRequest(request), signal },
        provider,
      );
      return { parsed: parseAppAnswer(raw, provider), raw };
    },

    async submit(items, { signal }) {
      const model = items[0]?.request.model ?? '';
      const body = { model, requests: items.map(({ id, request }) => ({ id, ...appRequest(request) })) };
      const job = objectOf(
        await requestJson({ method: 'POST', url: `${target.baseUrl}/v1/jobs`, headers, body, signal }, provider),
        provider,
      );
      const id = str(job.id);
      if (!id)
        throw AssistantError.permanent('malformed_response', 'The app gateway did not return a job id', { provider });
      return id;
    },

    async poll(jobId, ids, { signal }) {
      const job = objectOf(
        await requestJson(
          { method: 'GET', url: `${target.baseUrl}/v1/jobs/${encodeURIComponent(jobId)}`, headers, signal },
          provider,
        ),
        provider,
      );
      const status = str(job.status) ?? 'unknown';
      if (status === 'queued' || status === 'running') return { done: false, status };
      const byId = new Map<string, unknown>();
      for (const r of arrayOf(job.results)) if (isObject(r) && str(r.id)) byId.set(str(r.id) as string, r);
      return {
        done: true,
        status,
        results: ids.map((id) => {
          const item = byId.get(id);
          if (!item)
            return {
              id,
              ok: false as const,
              error: AssistantError.retryable(
                'batch_item',
                `The queue job ended (${status}) without an answer for this prompt`,
                { provider },
              ),
            };
          try {
            return { id, ok: true as const, parsed: parseAppAnswer(item, provider), raw: item };
          } catch (err) {
            return { id, ok: false as const, error: classifyError(err, provider) };
          }
        }),
      };
    },
  };
}

export function appRequest(request: ResolvedAsk): Record<string, unknown> {
  return {
    model: request.model,
    prompt: request.prompt,
    context: request.context,
    country: request.countryCode,
    location: request.countryName,
    language: request.languageName,
  };
}
