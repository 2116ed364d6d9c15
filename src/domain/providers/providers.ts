import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { pagingShape } from '../common/index.ts';
import type { Config } from '../../config.ts';
import {
  CATALOG,
  upstreamFor,
  defaultModel,
  type ModelEntry,
  type ProviderEntry,
  type ProviderKey,
} from '../../assistants/catalog.ts';
import { isConnected, targetKind } from '../../assistants/targets.ts';
import { microsToUsd, type Micros } from '../../money.ts';

/**
 * CONTRACT.md "Configuration": who answers a provider. `api` with its
 * credential; `simulator` without one in `auto` mode, or always in
 * `simulator` mode; null when it is not connected (`live` mode without a
 * credential), and then no scan may name it.
 */
export function providerSource(config: Config, key: ProviderKey): 'api' | 'simulator' | null {
  const upstream = upstreamFor(key, defaultModel(key));
  return isConnected(config.assistants, upstream) ? targetKind(config.assistants, upstream) : null;
}

export function connectedProviders(config: Config): ProviderKey[] {
  return CATALOG.filter((p) => providerSource(config, p.key) !== null).map((p) => p.key);
}

/**
 * Whether a model's answers cost the customer nothing: the simulator answers
 * them in `auto` mode, because its credential is missing, on a deployment
 * that may merely have forgotten NODE_ENV=production (CONTRACT.md
 * "Configuration": never charge for a simulated answer without saying so).
 * With ASSISTANTS=simulator set on purpose (the demo, tests) simulated
 * answers keep their catalog price, as a rehearsal of the real bill.
 */
export function answersFree(config: Config, provider: ProviderKey, model: ModelEntry): boolean {
  return (
    config.assistants.mode === 'auto' && targetKind(config.assistants, upstreamFor(provider, model)) === 'simulator'
  );
}

/** What one answer of a model is charged: its catalog (or batch) price, or 0 when answersFree. The one place this is decided. */
export function chargedPrice(config: Config, provider: ProviderKey, model: ModelEntry, batch: boolean): Micros {
  if (answersFree(config, provider, model)) return 0;
  return batch && model.batchPriceMicros !== null ? model.batchPriceMicros : model.priceMicros;
}

/** One provider of the catalog as the providers endpoint and scan options show it: prices as they would be charged. */
export function providerView(config: Config, p: ProviderEntry) {
  return {
    key: p.key,
    name: p.name,
    model: p.defaultModel,
    defaultModel: p.defaultModel,
    connected: providerSource(config, p.key) !== null,
    source: providerSource(config, p.key),
    // Said wherever an answer could come from the simulator; its price is 0 unless ASSISTANTS=simulator was set on purpose.
    simulated: providerSource(config, p.key) === 'simulator',
    models: p.models.map((m) => ({
      id: m.id,
      label: m.label,
      kind: m.kind,
      costPerAnswerUsd: microsToUsd(chargedPrice(config, p.key, m, false)),
      batchCostPerAnswerUsd: m.batchPriceMicros === null ? null : microsToUsd(chargedPrice(config, p.key, m, true)),
      default: m.id === p.defaultModel,
    })),
  };
}

/** The first page holds every assistant. */
export const PROVIDER_PAGE_DEFAULT = 20;
export const providerListQuerySchema = z.object(pagingShape(PROVIDER_PAGE_DEFAULT));
export type ProviderListQuery = z.output<typeof providerListQuerySchema>;

/** The catalog is six fixed entries; it pages like every list, so the MCP list tools all take page and perPage. */
export function listProviders(ctx: AppContext, query: ProviderListQuery) {
  const from = (query.page - 1) * query.perPage;
  return {
    providers: CATALOG.slice(from, from + query.perPage).map((p) => providerView(ctx.config, p)),
    total: CATALOG.length,
    page: query.page,
    perPage: query.perPage,
  };
}
