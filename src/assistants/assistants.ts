import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { AssistantError } from './assistant-error.ts';
import { runAttempt } from './attempt.ts';
import { upstreamFor, type ModelEntry, type ProviderKey } from './catalog.ts';
import { createLocalGate, DEFAULT_LIMITS, type UpstreamGate } from './upstream-gate.ts';
import { createAnthropicAdapter } from './providers/anthropic.ts';
import { createAppGatewayAdapter } from './providers/app-gateway.ts';
import { createGeminiAdapter } from './providers/gemini.ts';
import { createOpenAIAdapter } from './providers/openai.ts';
import { createPerplexityAdapter } from './providers/perplexity.ts';
import { createSerpAdapter } from './providers/serp.ts';
import { resolveModel, resolveRequest } from './resolve.ts';
import { DEFAULT_RETRY, sleep, withRetry, type RetryPolicy } from './retry.ts';
import { isConnected, resolveTarget, targetKind } from './targets.ts';
import { storableAnswer } from './storable.ts';
import { capAnswer, MAX_ANSWER_BYTES } from './truncate.ts';
import { UPSTREAMS } from './types.ts';
import type {
  AnswerTarget,
  Assistants,
  AskResult,
  BatchAdapter,
  BatchHandle,
  BatchItemResult,
  BatchPoll,
  BatchRequest,
  ParsedAnswer,
  ProviderAdapter,
  UpstreamKey,
} from './types.ts';

export interface AssistantsOptions {
  /** Tests shrink `baseDelayMs`; production keeps the contract's 3 tries from 1 s. */
  retry?: Partial<RetryPolicy>;
  /**
   * Where every attempt waits for its upstream's account limits (upstream-gate.ts):
   * workers pass the Redis gate shared by all processes; without one, a
   * process-local limit of `concurrency` calls in flight per upstream.
   */
  gate?: UpstreamGate;
  /** In-flight calls per upstream for the local gate (defaults in upstream-gate.ts). */
  concurrency?: Partial<Record<UpstreamKey, number>>;
  maxAnswerBytes?: number;
  /** How `ask` waits on a `*-app-queue` model: poll interval and overall bound. */
  queuePollIntervalMs?: number;
  queueWaitMs?: number;
  random?: () => number;
}

const BATCH_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The one entry point scans use to reach assistants. Each call resolves the
 * model in the catalog, picks the upstream (real API or simulator), and runs
 * single attempts through the upstream's account limits (the gate), a per-call
 * timeout and the retry policy; replies come back normalised and priced.
 */
export function createAssistants(
  config: Config['assistants'],
  logger: Logger,
  options: AssistantsOptions = {},
): Assistants {
  const log = logger.child({ component: 'assistants' });
  // One child logger per provider and upstream, made when first used, not one per call.
  const callLogs = new Map<string, Logger>();
  const callLog = (provider: ProviderKey, upstream: UpstreamKey) => {
    const key = `${provider}:${upstream}`;
    let child = callLogs.get(key);
    if (!child) callLogs.set(key, (child = log.child({ provider, upstream })));
    return child;
  };
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  const gate = options.gate ?? createLocalGate((u) => options.concurrency?.[u] ?? DEFAULT_LIMITS[u].maxInFlight);
  const maxAnswerBytes = options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
  const adapters = new Map<string, ProviderAdapter & Partial<BatchAdapter>>();

  for (const upstream of UPSTREAMS) {
    if (config.mode === 'auto' && config[upstream].apiKey && targetKind(config, upstream) === 'simulator') {
      log.warn({ upstream }, 'credential set without a base URL; answering from the simulator');
    }
  }

  const sourceOf = (provider: ProviderKey, model?: string): AnswerTarget =>
    targetKind(config, upstreamFor(provider, resolveModel(provider, model)));

  function adapterFor(
    provider: ProviderKey,
    upstream: UpstreamKey,
    target: AnswerTarget,
  ): ProviderAdapter & Partial<BatchAdapter> {
    if (!isConnected(config, upstream))
      throw AssistantError.permanent(
        'unsupported',
        `${provider} is not connected: this deployment has no credential for it`,
        { provider },
      );
    // One SERP upstream serves two providers, each with an adapter of its own.
    const key = `${upstream}:${target}:${upstream === 'serp' ? provider : ''}`;
    let adapter = adapters.get(key);
    if (!adapter) {
      const t = resolveTarget(config, upstream, target);
      switch (upstream) {
        case 'openai':
          adapter = createOpenAIAdapter(t);
          break;
        case 'anthropic':
          adapter = createAnthropicAdapter(t);
          break;
        case 'perplexity':
          adapter = createPerplexityAdapter(t);
          break;
        case 'gemini':
          adapter = createGeminiAdapter(t);
          break;
        case 'serp':
          adapter = createSerpAdapter(t, provider === 'google-ai-mode' ? 'google-ai-mode' : 'google-ai-overview');
          break;
        case 'appGateway':
          adapter = createAppGatewayAdapter(t, provider);
          break;
      }
      adapters.set(key, adapter);
    }
    return adapter;
  }

  /**
   * One upstream call with the whole policy around it: retries (withRetry is
   * the only place that decides them), then the account's limits (the gate
   * only paces attempts and learns from their 429s), then the timeout.
   */
  function call<T>(
    upstream: UpstreamKey,
    provider: ProviderKey,
    signal: AbortSignal | undefined,
    fn: (s: AbortSignal) => Promise<T>,
  ): Promise<T> {
    return withRetry(
      () => gate.run(upstream, () => runAttempt(fn, { timeoutMs: config.timeoutMs, signal, provider }), signal),
      {
        policy,
        provider,
        signal,
        logger: callLog(provider, upstream),
        random: options.random,
      },
    );
  }

  function finish(
    reply: ParsedAnswer,
    raw: unknown,
    ctx: { provider: ProviderKey; entry: ModelEntry; target: AnswerTarget; started: number; batch: boolean },
  ): AskResult {
    const parsed = storableAnswer(reply);
    const capped = capAnswer(parsed.text, parsed.citations, maxAnswerBytes);
    if (capped.truncated)
      log.warn(
        { provider: ctx.provider, model: ctx.entry.id, bytes: Buffer.byteLength(parsed.text) },
        'answer over the size cap truncated',
      );
    return {
      ...parsed,
      text: capped.text,
      citations: capped.citations,
      model: parsed.model || ctx.entry.id,
      provider: ctx.provider,
      requestedModel: ctx.entry.id,
      costMicros: ctx.batch ? (ctx.entry.batchPriceMicros ?? ctx.entry.priceMicros) : ctx.entry.priceMicros,
      raw,
      truncated: capped.truncated,
      target: ctx.target,
      latencyMs: Date.now() - ctx.started,
    };
  }

  function batchKindOf(entry: ModelEntry): 'batch' | 'queue' | null {
    if (entry.kind === 'app-queue') return 'queue';
    if (entry.kind === 'api' && entry.batchPriceMicros !== null) return 'batch';
    return null;
  }

  async function submit(requests: BatchRequest[], signal: AbortSignal | undefined): Promise<BatchHandle> {
    const first = requests[0];
    if (!first) throw AssistantError.permanent('bad_request', 'A batch needs at least one prompt');
    const resolved = requests.map((r) => ({ id: r.id, ...resolveRequest(r) }));
    const ids = new Set<string>();
    for (const r of resolved) {
      if (r.ask.provider !== first.provider || r.entry.id !== resolved[0]?.entry.id) {
        throw AssistantError.permanent('bad_request', 'All prompts of a batch must use one provider and model', {
          provider: first.provider,
        });
      }
      if (!BATCH_ID.test(r.id) || ids.has(r.id))
        throw AssistantError.permanent('bad_request', `Batch ids must be unique and match ${BATCH_ID}: ${r.id}`);
      ids.add(r.id);
    }
    const head = resolved[0];
    if (!head) throw AssistantError.permanent('bad_request', 'A batch needs at least one prompt');
    const kind = batchKindOf(head.entry);
    if (!kind)
      throw AssistantError.permanent(
        'unsupported',
        `Model ${head.entry.id} of ${first.provider} has no batch or queue mode`,
        { provider: first.provider },
      );
    const target = targetKind(config, head.upstream);
    const adapter = adapterFor(first.provider, head.upstream, target);
    const submitFn = adapter.submit;
    if (!submitFn)
      throw AssistantError.permanent('unsupported', `${first.provider} has no batch API`, { provider: first.provider });
    const jobId = await call(head.upstream, first.provider, signal, (s) =>
      submitFn(
        resolved.map((r) => ({ id: r.id, request: r.ask })),
        { signal: s, timeoutMs: config.timeoutMs },
      ),
    );
    log.info(
      { provider: first.provider, model: head.entry.id, kind, target, jobId, prompts: requests.length },
      'batch submitted',
    );
    return {
      version: 1,
      kind,
      provider: first.provider,
      model: head.entry.id,
      target,
      jobId,
      ids: [...ids],
      submittedAt: new Date().toISOString(),
    };
  }

  async function poll(handle: BatchHandle, signal: AbortSignal | undefined): Promise<BatchPoll> {
    if (handle?.version !== 1 || !handle.jobId || !Array.isArray(handle.ids))
      throw AssistantError.permanent('bad_request', 'Not a batch handle');
    const entry = resolveModel(handle.provider, handle.model);
    const upstream = upstreamFor(handle.provider, entry);
    const adapter = adapterFor(handle.provider, upstream, handle.target);
    const pollFn = adapter.poll;
    if (!pollFn)
      throw AssistantError.permanent('unsupported', `${handle.provider} has no batch API`, {
        provider: handle.provider,
      });
    const started = Date.now();
    const outcome = await call(upstream, handle.provider, signal, (s) =>
      pollFn(handle.jobId, handle.ids, { signal: s, timeoutMs: config.timeoutMs }),
    );
    if (!outcome.done) return outcome;
    const ctx = { provider: handle.provider, entry, target: handle.target, started, batch: handle.kind === 'batch' };
    const results: BatchItemResult[] = outcome.results.map((r) =>
      r.ok ? { id: r.id, ok: true, answer: finish(r.parsed, r.raw, ctx) } : r,
    );
    log.info(
      {
        provider: handle.provider,
        jobId: handle.jobId,
        status: outcome.status,
        failed: results.filter((r) => !r.ok).length,
        total: results.length,
      },
      'batch collected',
    );
    return { done: true, status: outcome.status, results };
  }

  return {
    async ask(request, opts = {}) {
      const resolved = resolveRequest(request);
      const { entry, upstream } = resolved;
      if (entry.kind === 'app-queue') return askThroughQueue(request, opts.signal);
      const target = targetKind(config, upstream);
      const adapter = adapterFor(request.provider, upstream, target);
      const started = Date.now();
      const out = await call(upstream, request.provider, opts.signal, (s) =>
        adapter.ask(resolved.ask, { signal: s, timeoutMs: config.timeoutMs }),
      );
      const result = finish(out.parsed, out.raw, { provider: request.provider, entry, target, started, batch: false });
      log.debug(
        {
          provider: request.provider,
          model: entry.id,
          target,
          latencyMs: result.latencyMs,
          citations: result.citations.length,
          searches: result.searches.length,
        },
        'answer received',
      );
      return result;
    },

    submitBatch: (requests, opts = {}) => submit(requests, opts.signal),
    pollBatch: (handle, opts = {}) => poll(handle, opts.signal),

    batchKind: (provider, model) => batchKindOf(resolveModel(provider, model)),

    isConnected: (provider, model) => sourceOf(provider, model) === 'api',
    source: sourceOf,
  };

  /** `ask` on a queued model: submit one prompt and wait for it, for scripts and demos (scans poll instead). */
  async function askThroughQueue(
    request: Parameters<Assistants['ask']>[0],
    signal: AbortSignal | undefined,
  ): Promise<AskResult> {
    const handle = await submit([{ ...request, id: 'q1' }], signal);
    const deadline = Date.now() + (options.queueWaitMs ?? 15 * 60_000);
    for (;;) {
      const outcome = await poll(handle, signal);
      if (outcome.done) {
        const only = outcome.results[0];
        if (!only)
          throw AssistantError.permanent('empty_answer', 'The queue job returned no answer', {
            provider: request.provider,
          });
        if (!only.ok) throw only.error;
        return only.answer;
      }
      if (Date.now() > deadline)
        throw AssistantError.retryable('timeout', 'The queued answer did not arrive in time', {
          provider: request.provider,
        });
      await sleep(options.queuePollIntervalMs ?? 5000, signal);
    }
  }
}
