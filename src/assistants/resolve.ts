import { AssistantError } from './assistant-error.ts';
import { upstreamFor, findModel, isProviderKey, providerEntry, type ModelEntry, type ProviderKey } from './catalog.ts';
import { resolveCountry, resolveLanguage } from './locales.ts';
import type { AskRequest, ResolvedAsk, UpstreamKey } from './types.ts';

export interface Resolved {
  entry: ModelEntry;
  upstream: UpstreamKey;
  ask: ResolvedAsk;
}

/** Validates a request against the catalog and normalises its locale. */
export function resolveRequest(request: AskRequest): Resolved {
  const entry = resolveModel(request.provider, request.model);
  const prompt = request.prompt?.trim();
  if (!prompt) throw AssistantError.permanent('bad_request', 'The prompt is empty', { provider: request.provider });
  const country = resolveCountry(request.location);
  const language = resolveLanguage(request.language);
  return {
    entry,
    upstream: upstreamFor(request.provider, entry),
    ask: {
      provider: request.provider,
      model: entry.id,
      prompt,
      context: request.context?.trim() || null,
      countryCode: country.code,
      countryName: country.name,
      languageCode: language.code,
      languageName: language.name,
    },
  };
}

export function resolveModel(provider: ProviderKey, model: string | undefined): ModelEntry {
  if (!isProviderKey(provider)) throw AssistantError.permanent('unsupported', `Unknown provider ${String(provider)}`);
  const id = model ?? providerEntry(provider).defaultModel;
  const entry = findModel(provider, id);
  if (!entry) throw AssistantError.permanent('unsupported', `Provider ${provider} has no model ${id}`, { provider });
  return entry;
}
