import pLimit, { type LimitFunction } from 'p-limit';
import type { UpstreamKey } from './types.ts';

/**
 * In-flight calls per upstream, per process. Provider rate limits are per
 * account, so these stay modest; several workers multiply them.
 */
export const DEFAULT_CONCURRENCY: Record<UpstreamKey, number> = {
  openai: 8,
  anthropic: 4,
  perplexity: 6,
  gemini: 8,
  serp: 4,
  appGateway: 4,
};

export function createLimits(overrides: Partial<Record<UpstreamKey, number>> = {}): (upstream: UpstreamKey) => LimitFunction {
  const limits = new Map<UpstreamKey, LimitFunction>();
  return (upstream) => {
    let limit = limits.get(upstream);
    if (!limit) {
      limit = pLimit(Math.max(1, overrides[upstream] ?? DEFAULT_CONCURRENCY[upstream]));
      limits.set(upstream, limit);
    }
    return limit;
  };
}
