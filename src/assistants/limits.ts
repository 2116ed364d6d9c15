import pLimit, { type LimitFunction } from 'p-limit';
import type { UpstreamKey } from './types.ts';

/**
 * In-flight calls per provider, per process, by upstream (the two Google
 * providers share the SERP upstream but each gets its own limit). Provider
 * rate limits are per account, so these stay modest; several workers multiply them.
 */
export const DEFAULT_CONCURRENCY: Record<UpstreamKey, number> = {
  openai: 8,
  anthropic: 4,
  perplexity: 6,
  gemini: 8,
  serp: 4,
  appGateway: 4,
};

export function createLimits(overrides: Partial<Record<UpstreamKey, number>> = {}): (upstream: UpstreamKey, provider: string) => LimitFunction {
  const limits = new Map<string, LimitFunction>();
  return (upstream, provider) => {
    const key = `${upstream}:${provider}`;
    let limit = limits.get(key);
    if (!limit) {
      limit = pLimit(Math.max(1, overrides[upstream] ?? DEFAULT_CONCURRENCY[upstream]));
      limits.set(key, limit);
    }
    return limit;
  };
}
