import type { Micros } from '../money.ts';
import type { AssistantError } from './assistant-error.ts';
import type { ProviderKey } from './catalog.ts';

/**
 * Glossary
 * - provider: one of the six assistants a scan asks (catalog PROVIDER_KEYS).
 * - upstream: the service a model is reached through (a credential in
 *   Config.assistants): openai, anthropic, perplexity, gemini, serp, appGateway.
 * - target: where an upstream's calls go: its real API, or the simulator.
 * - answer: one normalised reply to one prompt, whatever the provider.
 * - batch: many prompts submitted as one provider batch job (half price).
 * - queue: the app gateway's submit-then-poll flow for `*-app-queue` models.
 */

/** The upstream accounts answers are asked through, each with its own credential and limits: the one list of them. */
export const UPSTREAMS = ['openai', 'anthropic', 'perplexity', 'gemini', 'serp', 'appGateway'] as const;
export type UpstreamKey = (typeof UPSTREAMS)[number];
export type AnswerTarget = 'api' | 'simulator';

export interface AskRequest {
  provider: ProviderKey;
  /** Catalog model id; the provider's default model when omitted. */
  model?: string;
  prompt: string;
  /** Persona wording: who is asking, passed as system-level context. */
  context?: string | null;
  /** Country name ("United States") or ISO code ("US"). */
  location?: string | null;
  /** Language name ("English") or ISO 639-1 code ("en"). */
  language?: string | null;
}

export interface Citation {
  url: string;
  title: string;
  /** Source domain without `www.`; for Gemini the title's domain, since its links are redirects. */
  domain: string;
  /** Span of `text` (UTF-16 offsets, end exclusive) the citation supports, where the provider gives one. */
  startIndex?: number;
  endIndex?: number;
  citedText?: string;
}

/** A page the assistant consulted (search result), cited or not. */
export interface Source {
  url: string;
  title: string;
  domain: string;
}

/** What a provider parser extracts from one reply; pure data. */
export interface ParsedAnswer {
  text: string;
  /** One entry per cited span; the same URL may appear more than once. */
  citations: Citation[];
  searches: string[];
  sources: Source[];
  /** The model id the provider says answered. */
  model: string;
  usage: Record<string, unknown> | null;
}

export interface AskResult extends ParsedAnswer {
  provider: ProviderKey;
  /** The catalog model id that was asked (ParsedAnswer.model is what answered). */
  requestedModel: string;
  costMicros: Micros;
  /** The provider's JSON, kept so answers can be re-parsed (capped where it is stored: rawJson). */
  raw: unknown;
  /** True when the text was cut at the answer size cap. */
  truncated: boolean;
  target: AnswerTarget;
  latencyMs: number;
}

export interface CallOptions {
  signal?: AbortSignal;
}

/** One prompt of a batch; `id` is the caller's key for matching results (1-64 of [A-Za-z0-9_-]). */
export interface BatchRequest extends AskRequest {
  id: string;
}

/** JSON-serialisable reference to a submitted batch or queue job, stored in a job payload. */
export interface BatchHandle {
  version: 1;
  kind: 'batch' | 'queue';
  provider: ProviderKey;
  model: string;
  target: AnswerTarget;
  /** The provider's job id (OpenAI batch id, Anthropic message batch id, Gemini batch name, gateway job id). */
  jobId: string;
  /** Caller ids in submission order. */
  ids: string[];
  submittedAt: string;
}

export type BatchItemResult =
  { id: string; ok: true; answer: AskResult } | { id: string; ok: false; error: AssistantError };

export type BatchPoll = { done: false; status: string } | { done: true; status: string; results: BatchItemResult[] };

export interface Assistants {
  /** Ask one prompt; retries retryable failures, then throws AssistantError. */
  ask(request: AskRequest, options?: CallOptions): Promise<AskResult>;
  /** Submit prompts of one provider and model as a batch (API models) or queue job (`*-app-queue`). */
  submitBatch(requests: BatchRequest[], options?: CallOptions): Promise<BatchHandle>;
  pollBatch(handle: BatchHandle, options?: CallOptions): Promise<BatchPoll>;
  /** 'batch' for API models with a batch price, 'queue' for `*-app-queue`, null when only `ask` applies. */
  batchKind(provider: ProviderKey, model?: string): 'batch' | 'queue' | null;
  /** True when the provider's own credential is configured and used (not the simulator). */
  isConnected(provider: ProviderKey, model?: string): boolean;
  source(provider: ProviderKey, model?: string): AnswerTarget;
}

/** A per-call context an adapter gets: where to send and what to ask. */
export interface ResolvedAsk {
  provider: ProviderKey;
  model: string;
  prompt: string;
  context: string | null;
  /** ISO 3166-1 alpha-2, upper case, when the location is known. */
  countryCode: string | null;
  countryName: string | null;
  /** ISO 639-1, lower case, when the language is known. */
  languageCode: string | null;
  languageName: string | null;
}

export interface AttemptOptions {
  signal: AbortSignal;
  timeoutMs: number;
}

/** One provider adapter: a single attempt per call; retries and limits live around it. */
export interface ProviderAdapter {
  ask(request: ResolvedAsk, options: AttemptOptions): Promise<{ parsed: ParsedAnswer; raw: unknown }>;
}

export interface BatchAdapter {
  submit(requests: { id: string; request: ResolvedAsk }[], options: AttemptOptions): Promise<string>;
  poll(
    jobId: string,
    ids: string[],
    options: AttemptOptions,
  ): Promise<
    | { done: false; status: string }
    | {
        done: true;
        status: string;
        results: (
          | { id: string; ok: true; parsed: ParsedAnswer; raw: unknown }
          | { id: string; ok: false; error: AssistantError }
        )[];
      }
  >;
}
