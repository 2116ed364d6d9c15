import { requestJson } from '../http.ts';
import { googleCountry, googleLanguage } from '../locales.ts';
import { isObject, str } from '../parse-helpers.ts';
import { parseSerpAiMode, parseSerpOverview } from '../parsers/serp.ts';
import type { Target } from '../targets.ts';
import type { ProviderAdapter, ResolvedAsk } from '../types.ts';

/**
 * Google AI Overview and AI Mode through a SerpApi-style SERP API
 * (`/search.json`). Location as `gl` plus the country name as `location`,
 * language as `hl`. An AI Overview that Google loads lazily comes back with
 * only a `page_token`; it is fetched at once with `engine=google_ai_overview`
 * (the token expires within minutes). A search page has no persona: AI
 * Overview ignores the context; AI Mode, being conversational, gets it
 * before the question.
 */
export function createSerpAdapter(target: Target, provider: 'google-ai-overview' | 'google-ai-mode'): ProviderAdapter {
  const get = (params: Record<string, string | null>, signal: AbortSignal) => {
    const url = new URL(`${target.baseUrl}/search.json`);
    for (const [k, v] of Object.entries(params)) if (v) url.searchParams.set(k, v);
    url.searchParams.set('api_key', target.apiKey);
    return requestJson({ method: 'GET', url: url.toString(), signal }, provider);
  };

  return {
    async ask(request, { signal }) {
      if (provider === 'google-ai-mode') {
        const q = request.context ? `${request.context}\n\n${request.prompt}` : request.prompt;
        const raw = await get({ engine: 'google_ai_mode', q, ...localeParams(request) }, signal);
        return { parsed: parseSerpAiMode(raw, q), raw };
      }
      const search = await get({ engine: 'google', q: request.prompt, ...localeParams(request) }, signal);
      const overview = isObject(search) && isObject(search.ai_overview) ? search.ai_overview : undefined;
      const token = overview && !Array.isArray(overview.text_blocks) ? str(overview.page_token) : undefined;
      const raw = token
        ? { search, aiOverview: await get({ engine: 'google_ai_overview', page_token: token }, signal) }
        : { search };
      return { parsed: parseSerpOverview(raw, request.prompt), raw };
    },
  };
}

export function localeParams(request: ResolvedAsk): Record<string, string | null> {
  return {
    gl: googleCountry(request.countryCode),
    hl: googleLanguage(request.languageCode, request.countryCode),
    location: request.countryCode ? request.countryName : null,
  };
}
