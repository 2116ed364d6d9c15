import { createAssistants, createRedisGate, resolveLimits, type Assistants, type ProviderGate } from '../../assistants/index.ts';
import { credentialFor, findModel, type ProviderKey } from '../../assistants/catalog.ts';
import type { UpstreamKey } from '../../assistants/types.ts';
import type { AppContext } from '../../context.ts';
import { gateObserver } from '../../telemetry/gate-metrics.ts';
import { recorderFor } from '../../telemetry/shared-metrics.ts';

interface Layer {
  assistants: Assistants;
  gate: ProviderGate;
}

const cache = new WeakMap<AppContext['redis'], Layer>();

function layerFor(ctx: AppContext): Layer {
  let layer = cache.get(ctx.redis);
  if (!layer) {
    // Each call's wait and outcome are counted for the operator's /metrics (summed across workers).
    const observer = gateObserver(recorderFor(ctx));
    const gate = createRedisGate(ctx.redis, { prefix: ctx.config.redisPrefix, limits: resolveLimits(ctx.config), logger: ctx.logger, observer });
    const assistants = createAssistants(ctx.config.assistants, ctx.logger, { gate, retry: { baseDelayMs: ctx.config.assistants.retryBaseMs } });
    layer = { assistants, gate };
    cache.set(ctx.redis, layer);
  }
  return layer;
}

/**
 * One assistants layer per process (per Redis connection): every call of
 * every job goes through the one gate that holds each provider account's
 * limits for all worker processes together (src/assistants/limits.ts).
 */
export function assistantsFor(ctx: AppContext): Assistants {
  return layerFor(ctx).assistants;
}

/** The account limits all processes share, for dividing a provider's capacity between scans. */
export function gateFor(ctx: AppContext): ProviderGate {
  return layerFor(ctx).gate;
}

/** The upstream (provider account) a provider's model is reached through. */
export function upstreamOf(provider: ProviderKey, modelId: string): UpstreamKey {
  const model = findModel(provider, modelId);
  return model ? credentialFor(provider, model) : 'openai';
}

/**
 * Calls the whole deployment may have in flight to a provider's account
 * (`<UPSTREAM>_MAX_IN_FLIGHT`, else ASSISTANT_CONCURRENCY, else the default):
 * a scan lane reserves money by blocks of this many calls.
 */
export function concurrencyFor(ctx: AppContext, provider: ProviderKey, modelId: string): number {
  return resolveLimits(ctx.config)[upstreamOf(provider, modelId)].maxInFlight;
}
