import { requestJson } from '../http.ts';
import { systemInstruction } from '../instructions.ts';
import { parsePerplexityCompletion } from '../parsers/perplexity.ts';
import type { Target } from '../targets.ts';
import type { ProviderAdapter, ResolvedAsk } from '../types.ts';

/**
 * Perplexity: Sonar chat completions over plain fetch. Location goes in
 * `web_search_options.user_location.country`; persona and language in a
 * system message.
 */
export function createPerplexityAdapter(target: Target): ProviderAdapter {
  return {
    async ask(request, { signal }) {
      const raw = await requestJson(
        {
          method: 'POST',
          url: `${target.baseUrl}/chat/completions`,
          headers: { authorization: `Bearer ${target.apiKey}` },
          body: completionBody(request),
          signal,
        },
        'perplexity',
      );
      return { parsed: parsePerplexityCompletion(raw), raw };
    },
  };
}

export function completionBody(request: ResolvedAsk): Record<string, unknown> {
  const system = systemInstruction(request, { includeLocation: false });
  return {
    model: request.model,
    messages: [...(system ? [{ role: 'system', content: system }] : []), { role: 'user', content: request.prompt }],
    ...(request.countryCode ? { web_search_options: { user_location: { country: request.countryCode } } } : {}),
  };
}
