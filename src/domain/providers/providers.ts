import type { AppContext } from '../../context.ts';
import type { Config } from '../../config.ts';
import { CATALOG, credentialFor, defaultModel, type ProviderEntry, type ProviderKey } from '../../assistants/catalog.ts';
import { targetKind } from '../../assistants/targets.ts';
import { microsToUsd } from '../../money.ts';

/**
 * With no credential a provider is answered by the bundled simulator
 * (CONTRACT.md), so every provider can answer; `source` says which.
 */
export function providerSource(config: Config, key: ProviderKey): 'api' | 'simulator' {
  return targetKind(config.assistants, credentialFor(key, defaultModel(key)));
}

export function connectedAssistants(): ProviderKey[] {
  return CATALOG.map((p) => p.key);
}

/** One provider of the catalog as the providers endpoint and scan options show it. */
export function providerView(config: Config, p: ProviderEntry) {
  return {
    key: p.key,
    name: p.name,
    model: p.defaultModel,
    defaultModel: p.defaultModel,
    connected: true,
    source: providerSource(config, p.key),
    models: p.models.map((m) => ({
      id: m.id,
      label: m.label,
      kind: m.kind,
      costPerAnswerUsd: microsToUsd(m.priceMicros),
      batchCostPerAnswerUsd: m.batchPriceMicros === null ? null : microsToUsd(m.batchPriceMicros),
      default: m.id === p.defaultModel,
    })),
  };
}

export function listProviders(ctx: AppContext) {
  return { providers: CATALOG.map((p) => providerView(ctx.config, p)) };
}
