import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { pagingShape } from '../reports/query.ts';
import type { Config } from '../../config.ts';
import { CATALOG, credentialFor, defaultModel, type ProviderEntry, type ProviderKey } from '../../assistants/catalog.ts';
import { isConnected, targetKind } from '../../assistants/targets.ts';
import { microsToUsd } from '../../money.ts';

/**
 * CONTRACT.md "Configuration": who answers a provider. `api` with its
 * credential; `simulator` without one in `auto` mode, or always in
 * `simulator` mode; null when it is not connected (`live` mode without a
 * credential), and then no scan may name it.
 */
export function providerSource(config: Config, key: ProviderKey): 'api' | 'simulator' | null {
  const upstream = credentialFor(key, defaultModel(key));
  return isConnected(config.assistants, upstream) ? targetKind(config.assistants, upstream) : null;
}

export function connectedAssistants(config: Config): ProviderKey[] {
  return CATALOG.filter((p) => providerSource(config, p.key) !== null).map((p) => p.key);
}

/** One provider of the catalog as the providers endpoint and scan options show it. */
export function providerView(config: Config, p: ProviderEntry) {
  return {
    key: p.key,
    name: p.name,
    model: p.defaultModel,
    defaultModel: p.defaultModel,
    connected: providerSource(config, p.key) !== null,
    source: providerSource(config, p.key),
    // Said wherever an answer could come from the simulator: customers pay catalog prices for these.
    simulated: providerSource(config, p.key) === 'simulator',
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
