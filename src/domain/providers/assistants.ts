import { createAssistants, DEFAULT_CONCURRENCY, type Assistants, type UpstreamKey } from '../../assistants/index.ts';
import { credentialFor, findModel, type ProviderKey } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';

const cache = new WeakMap<AppContext['config'], Assistants>();

function concurrencyOverrides(ctx: AppContext): Partial<Record<UpstreamKey, number>> {
  const n = ctx.config.assistants.concurrency;
  return n === undefined ? {} : Object.fromEntries(Object.keys(DEFAULT_CONCURRENCY).map((k) => [k, n]));
}

/** One assistants layer per process and config: its concurrency limits must be shared by every job. */
export function assistantsFor(ctx: AppContext): Assistants {
  let assistants = cache.get(ctx.config);
  if (!assistants) {
    assistants = createAssistants(ctx.config.assistants, ctx.logger, {
      concurrency: concurrencyOverrides(ctx),
      retry: { baseDelayMs: ctx.config.assistants.retryBaseMs },
    });
    cache.set(ctx.config, assistants);
  }
  return assistants;
}

/** Calls one process may have in flight to a provider's upstream; scans reserve money only inside these slots. */
export function concurrencyFor(ctx: AppContext, provider: ProviderKey, modelId: string): number {
  const model = findModel(provider, modelId);
  const upstream = model ? credentialFor(provider, model) : 'openai';
  return ctx.config.assistants.concurrency ?? DEFAULT_CONCURRENCY[upstream];
}
