import type { Config } from '../config.ts';
import type { AnswerTarget, UpstreamKey } from './types.ts';

/**
 * Where each upstream's calls go. An upstream with its credential (and, for
 * the app gateway, which has no public default, a base URL) goes to the real
 * service; otherwise, or with ASSISTANTS=simulator, to the bundled simulator
 * under the upstream's own prefix, with a dummy key.
 */

export interface Target {
  upstream: UpstreamKey;
  target: AnswerTarget;
  baseUrl: string;
  apiKey: string;
}

export const REAL_BASE_URL: Record<UpstreamKey, string | null> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
  perplexity: 'https://api.perplexity.ai',
  gemini: 'https://generativelanguage.googleapis.com',
  serp: 'https://serpapi.com',
  appGateway: null,
};

export const SIMULATOR_PREFIX: Record<UpstreamKey, string> = {
  openai: '/openai/v1',
  anthropic: '/anthropic',
  perplexity: '/perplexity',
  gemini: '/gemini',
  serp: '/serp',
  appGateway: '/app',
};

export const SIMULATOR_API_KEY = 'sim-key-not-secret';

/**
 * Whether an upstream can be asked at all: in `live` mode only with its
 * credential (no silent fall-back to the simulator); otherwise always.
 */
export function isConnected(config: Config['assistants'], upstream: UpstreamKey): boolean {
  return config.mode !== 'live' || targetKind(config, upstream) === 'api';
}

export function targetKind(config: Config['assistants'], upstream: UpstreamKey): AnswerTarget {
  if (config.mode === 'simulator') return 'simulator';
  const cred = config[upstream];
  if (!cred.apiKey) return 'simulator';
  if (!cred.baseUrl && !REAL_BASE_URL[upstream]) return 'simulator';
  return 'api';
}

export function resolveTarget(config: Config['assistants'], upstream: UpstreamKey, forced?: AnswerTarget): Target {
  const target = forced ?? targetKind(config, upstream);
  const cred = config[upstream];
  if (target === 'api' && cred.apiKey) {
    const baseUrl = (cred.baseUrl ?? REAL_BASE_URL[upstream] ?? '').replace(/\/$/, '');
    if (baseUrl) return { upstream, target, baseUrl, apiKey: cred.apiKey };
  }
  return {
    upstream,
    target: 'simulator',
    baseUrl: `${config.simulatorUrl.replace(/\/$/, '')}${SIMULATOR_PREFIX[upstream]}`,
    apiKey: SIMULATOR_API_KEY,
  };
}
