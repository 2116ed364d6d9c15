import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/assistants/upstream-gate.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';

/** Provider account limits from the environment: `<UPSTREAM>_RPM`, `<UPSTREAM>_MAX_IN_FLIGHT`, SIMULATOR_RPM. */

describe('provider account limits in the config', () => {
  it('defaults a live account to its modest entry-tier limits, and a simulated one to no rate', () => {
    const limits = resolveLimits(loadConfig({ ASSISTANTS: 'auto', OPENAI_API_KEY: 'sk-live' }));
    expect(limits.openai).toEqual({ rpm: DEFAULT_LIMITS.openai.rpm, maxInFlight: DEFAULT_LIMITS.openai.maxInFlight });
    expect(limits.anthropic).toEqual({ rpm: null, maxInFlight: DEFAULT_LIMITS.anthropic.maxInFlight });
  });

  it('takes each upstream its own pair, and ASSISTANT_CONCURRENCY for calls in flight otherwise', () => {
    const config = loadConfig({
      ASSISTANTS: 'simulator',
      OPENAI_RPM: '1200',
      OPENAI_MAX_IN_FLIGHT: '60',
      APP_GATEWAY_RPM: '30',
      ASSISTANT_CONCURRENCY: '5',
      WORKER_SCAN_CONCURRENCY: '25',
    });
    const limits = resolveLimits(config);
    expect(limits.openai).toEqual({ rpm: 1200, maxInFlight: 60 });
    expect(limits.appGateway).toEqual({ rpm: 30, maxInFlight: 5 });
    expect(limits.gemini).toEqual({ rpm: null, maxInFlight: 5 });
    expect(config.workerScanConcurrency).toBe(25);
    expect(loadConfig({}).workerScanConcurrency).toBe(10);
  });

  it('reads SIMULATOR_RPM per upstream and refuses what is not upstream=rpm', () => {
    expect(loadConfig({ SIMULATOR_RPM: 'openai=1200, appGateway=60' }).simulatorRpm).toEqual({
      openai: 1200,
      appGateway: 60,
    });
    expect(() => loadConfig({ SIMULATOR_RPM: 'openai=fast' })).toThrow(ConfigError);
    expect(() => loadConfig({ SIMULATOR_RPM: 'chatgpt=10' })).toThrow(/upstream=requests-per-minute/);
    expect(() => loadConfig({ OPENAI_RPM: '0' })).toThrow(/OPENAI_RPM/);
  });
});
