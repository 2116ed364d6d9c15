import { resolveLimits } from '../../assistants/index.ts';
import { upstreamFor, findModel, type ProviderKey } from '../../assistants/catalog.ts';
import type { UpstreamKey } from '../../assistants/types.ts';
import type { AppContext } from '../../context.ts';

// The one assistants layer and provider gate of a process are `ctx.assistants()` and `ctx.gate()` (src/context.ts).

/** The upstream (provider account) a provider's model is reached through. */
export function upstreamOf(provider: ProviderKey, modelId: string): UpstreamKey {
  const model = findModel(provider, modelId);
  return model ? upstreamFor(provider, model) : 'openai';
}

/**
 * Calls the whole deployment may have in flight to a provider's account
 * (`<UPSTREAM>_MAX_IN_FLIGHT`, else ASSISTANT_CONCURRENCY, else the default):
 * a scan lane reserves money by blocks of this many calls.
 */
export function concurrencyFor(ctx: AppContext, provider: ProviderKey, modelId: string): number {
  return resolveLimits(ctx.config)[upstreamOf(provider, modelId)].maxInFlight;
}
