import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('config', () => {
  it('has defaults from CONTRACT.md', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/sightline',
      redisUrl: 'redis://127.0.0.1:6379',
      host: '127.0.0.1',
      port: 8080,
      publicBaseUrl: 'http://127.0.0.1:8080',
      apiVariant: 'AB',
      logLevel: 'info',
    });
    expect(c.assistants.mode).toBe('auto');
    expect(c.assistants.simulatorUrl).toBe('http://127.0.0.1:4010');
  });

  it('reports every problem at once', () => {
    try {
      loadConfig({ PORT: '99999', API_VARIANT: 'X', OPENAI_BASE_URL: 'not a url', SITE_FETCH_MAP: 'acme.com' });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const problems = (err as ConfigError).problems.join('\n');
      for (const name of ['PORT', 'API_VARIANT', 'OPENAI_BASE_URL', 'SITE_FETCH_MAP']) expect(problems).toContain(name);
    }
  });

  it('treats empty values as unset and parses the site fetch map', () => {
    const c = loadConfig({
      PORT: '',
      SITE_FETCH_MAP: 'acme.com=http://127.0.0.1:9000/, Other.io=http://127.0.0.1:9001',
      PUBLIC_BASE_URL: 'https://api.example.com/',
    });
    expect(c.port).toBe(8080);
    expect([...c.siteFetchMap]).toEqual([
      ['acme.com', 'http://127.0.0.1:9000'],
      ['other.io', 'http://127.0.0.1:9001'],
    ]);
    expect(c.publicBaseUrl).toBe('https://api.example.com');
  });

  it('takes METRICS_TOKEN (unset by default) and refuses one too short to be a secret', () => {
    expect(loadConfig({}).metricsToken).toBeUndefined();
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-secret' }).metricsToken).toBe('a-long-enough-secret');
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN: must be at least 16 characters/);
  });

  it('refuses SITE_FETCH_MAP in production, with every other problem', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ NODE_ENV: 'production', SITE_FETCH_MAP: 'acme.com=http://127.0.0.1:9000' })).toEqual([
      expect.stringMatching(/^SITE_FETCH_MAP: not allowed when NODE_ENV=production/),
    ]);
    expect(problems({ NODE_ENV: 'production', SITE_FETCH_MAP: 'acme.com=http://127.0.0.1:9000', PORT: 'x' })).toEqual([
      expect.stringMatching(/^PORT/),
      expect.stringMatching(/^SITE_FETCH_MAP: not allowed/),
    ]);
    // Unset, empty or only separators: nothing is mapped, so nothing to refuse; outside production the map is read.
    expect(problems({ NODE_ENV: 'production', SITE_FETCH_MAP: ' , ' })).toEqual([]);
    expect(loadConfig({ NODE_ENV: 'production' }).siteFetchMap.size).toBe(0);
    expect(
      loadConfig({ NODE_ENV: 'development', SITE_FETCH_MAP: 'acme.com=http://127.0.0.1:9000' }).siteFetchMap.size,
    ).toBe(1);
  });

  it('gives every parse of a site file a deadline', () => {
    expect(loadConfig({}).siteFetch.parseTimeoutMs).toBe(20_000);
    expect(loadConfig({ SITE_PARSE_TIMEOUT_MS: '250' }).siteFetch.parseTimeoutMs).toBe(250);
    expect(() => loadConfig({ SITE_PARSE_TIMEOUT_MS: '0' })).toThrow(/SITE_PARSE_TIMEOUT_MS/);
  });

  it('bounds an analysis task: 10 s by default, from 1 ms (tests force the limit) to 10 minutes', () => {
    expect(loadConfig({}).analysis.timeoutMs).toBe(10_000);
    expect(loadConfig({ ANALYSIS_TIMEOUT_MS: '1' }).analysis.timeoutMs).toBe(1);
    for (const bad of ['0', '-5', '1.5', 'soon', '600001'])
      expect(() => loadConfig({ ANALYSIS_TIMEOUT_MS: bad }), bad).toThrow(/ANALYSIS_TIMEOUT_MS/);
  });

  it('is frozen', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.assistants.openai)).toBe(true);
  });
});
