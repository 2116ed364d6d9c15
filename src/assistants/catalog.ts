import { usdToMicros, type Micros } from '../money.ts';
import type { UpstreamKey } from './types.ts';

/**
 * The one model catalog: every provider, its models, prices per answer and
 * how each model answers. The providers endpoint, scan estimates and the
 * adapters all read this table.
 */

export const PROVIDER_KEYS = [
  'openai',
  'anthropic',
  'perplexity',
  'gemini',
  'google-ai-overview',
  'google-ai-mode',
] as const;
export type ProviderKey = (typeof PROVIDER_KEYS)[number];

export function isProviderKey(value: string): value is ProviderKey {
  return (PROVIDER_KEYS as readonly string[]).includes(value);
}

/** How a model's answers are obtained. */
export type ModelKind =
  | 'api' // the provider's own API, answer at once
  | 'app' // consumer app answer through the app-answer gateway, at once
  | 'app-queue' // consumer app answer, submit then poll minutes later
  | 'serp'; // a search engine results page read through a SERP API

/** Where a report says the provider's answers were read from. */
export type AnswerSource = 'api' | 'app' | 'search page';

export interface ModelEntry {
  id: string;
  label: string;
  kind: ModelKind;
  priceMicros: Micros;
  /** Batch price (50% of the answer price) where the provider has a batch API. */
  batchPriceMicros: Micros | null;
}

export interface ProviderEntry {
  key: ProviderKey;
  name: string;
  defaultModel: string;
  /** The upstream whose credential connects this provider's own models (app models go through appGateway). */
  upstream: Exclude<UpstreamKey, 'appGateway'>;
  models: readonly ModelEntry[];
}

const api = (id: string, label: string, usd: number, batch: boolean): ModelEntry => ({
  id,
  label,
  kind: 'api',
  priceMicros: usdToMicros(usd),
  batchPriceMicros: batch ? Math.round(usdToMicros(usd) / 2) : null,
});
const other = (id: string, label: string, kind: ModelKind, usd: number): ModelEntry => ({
  id,
  label,
  kind,
  priceMicros: usdToMicros(usd),
  batchPriceMicros: null,
});

export const CATALOG: readonly ProviderEntry[] = [
  {
    key: 'openai',
    name: 'ChatGPT',
    defaultModel: 'gpt-5-mini',
    upstream: 'openai',
    models: [
      api('gpt-5-mini', 'GPT-5 mini with web search', 0.012, true),
      api('gpt-5', 'GPT-5 with web search', 0.04, true),
      api('gpt-4.1', 'GPT-4.1 with web search', 0.03, true),
      other('chatgpt-app', 'ChatGPT app answer', 'app', 0.05),
      other('chatgpt-app-queue', 'ChatGPT app answer, queued', 'app-queue', 0.02),
    ],
  },
  {
    key: 'anthropic',
    name: 'Claude',
    // Sonnet 4.5 reaches end of life on 2026-11-30 (the SDK warns on every call), so 4.6 is the default.
    defaultModel: 'claude-sonnet-4-6',
    upstream: 'anthropic',
    models: [
      api('claude-sonnet-4-6', 'Claude Sonnet 4.6 with web search', 0.03, true),
      api('claude-haiku-4-5', 'Claude Haiku 4.5 with web search', 0.015, true),
      api('claude-opus-4-6', 'Claude Opus 4.6 with web search', 0.09, true),
    ],
  },
  {
    key: 'perplexity',
    name: 'Perplexity',
    defaultModel: 'sonar',
    upstream: 'perplexity',
    models: [api('sonar', 'Sonar', 0.008, false), api('sonar-pro', 'Sonar Pro', 0.02, false)],
  },
  {
    key: 'gemini',
    name: 'Gemini',
    defaultModel: 'gemini-2.5-flash',
    upstream: 'gemini',
    models: [
      api('gemini-2.5-flash', 'Gemini 2.5 Flash with Google Search', 0.01, true),
      api('gemini-2.5-pro', 'Gemini 2.5 Pro with Google Search', 0.035, true),
      other('gemini-app', 'Gemini app answer', 'app', 0.05),
      other('gemini-app-queue', 'Gemini app answer, queued', 'app-queue', 0.02),
    ],
  },
  {
    key: 'google-ai-overview',
    name: 'Google AI Overviews',
    defaultModel: 'ai-overview',
    upstream: 'serp',
    models: [other('ai-overview', 'Google AI Overview', 'serp', 0.015)],
  },
  {
    key: 'google-ai-mode',
    name: 'Google AI Mode',
    defaultModel: 'ai-mode',
    upstream: 'serp',
    models: [other('ai-mode', 'Google AI Mode', 'serp', 0.015)],
  },
];

const byKey = new Map(CATALOG.map((p) => [p.key, p]));

export function providerEntry(key: ProviderKey): ProviderEntry {
  const entry = byKey.get(key);
  if (!entry) throw new Error(`unknown provider ${key}`);
  return entry;
}

export function findModel(key: ProviderKey, modelId: string): ModelEntry | undefined {
  return providerEntry(key).models.find((m) => m.id === modelId);
}

export function defaultModel(key: ProviderKey): ModelEntry {
  const entry = providerEntry(key);
  const model = findModel(key, entry.defaultModel);
  if (!model) throw new Error(`catalog: default model of ${key} is missing`);
  return model;
}

/** The upstream a model is reached through (its credential is Config.assistants[upstream]). */
export function upstreamFor(key: ProviderKey, model: ModelEntry): UpstreamKey {
  return model.kind === 'app' || model.kind === 'app-queue' ? 'appGateway' : providerEntry(key).upstream;
}

export function answerSource(model: ModelEntry): AnswerSource {
  if (model.kind === 'serp') return 'search page';
  return model.kind === 'api' ? 'api' : 'app';
}
