import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { hasSecretParam, redactQuery, redactUrl } from '../../src/telemetry/redact.ts';

describe('tracing switch (OTEL_* variables)', () => {
  it('is off unless an OTLP endpoint or a traces exporter is set', () => {
    expect(loadConfig({}).tracing).toEqual({ enabled: false, serviceName: undefined });
    expect(loadConfig({ OTEL_SERVICE_NAME: 'sightline-eu' }).tracing.enabled).toBe(false);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing.enabled).toBe(true);
    expect(loadConfig({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }).tracing.enabled).toBe(
      true,
    );
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }).tracing.enabled).toBe(true);
    expect(loadConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'api-eu' }).tracing).toEqual({
      enabled: true,
      serviceName: 'api-eu',
    });
  });

  it('stays off when the SDK is disabled or the exporter is none', () => {
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing.enabled,
    ).toBe(false);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }).tracing.enabled,
    ).toBe(false);
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }).tracing
        .enabled,
    ).toBe(false);
  });

  it('refuses an endpoint that is not a URL', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'the collector' })).toThrow(ConfigError);
  });
});

describe('OPERATOR_TOKEN', () => {
  it('opens the queue dashboard when set', () => {
    expect(loadConfig({}).operatorToken).toBeUndefined();
    expect(loadConfig({ OPERATOR_TOKEN: 'a'.repeat(24) }).operatorToken).toBe('a'.repeat(24));
  });

  it('is refused when short or when it is a workspace key', () => {
    for (const token of ['short', 'a'.repeat(23), `slk_${'a'.repeat(40)}`]) {
      try {
        loadConfig({ OPERATOR_TOKEN: token });
        expect.unreachable(token);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).problems.join('\n')).toContain('OPERATOR_TOKEN');
        expect((err as ConfigError).message).not.toContain(token);
      }
    }
  });
});

describe('what a span may say about a URL', () => {
  it('replaces every query value, keeping the names', () => {
    expect(redactUrl('https://serpapi.com/search.json?engine=google&q=best+crm&api_key=s3cr3t')).toBe(
      'https://serpapi.com/search.json?engine=REDACTED&q=REDACTED&api_key=REDACTED',
    );
    expect(redactQuery('?a=1&a=2&b=')).toBe('?a=REDACTED&a=REDACTED&b=REDACTED');
    expect(redactQuery('')).toBe('');
    expect(redactUrl('https://api.openai.com/v1/responses')).toBe('https://api.openai.com/v1/responses');
  });

  it('drops credentials in the authority, and shows nothing of what is not a URL', () => {
    expect(redactUrl('https://user:pass@example.com/sitemap.xml')).toBe('https://example.com/sitemap.xml');
    expect(redactUrl('not a url')).toBe('REDACTED');
  });

  it('tells routes with a secret path parameter from routes with ids only', () => {
    expect(hasSecretParam('/share/:token')).toBe(true);
    expect(hasSecretParam('/projects/:id/scans/:scanId')).toBe(false);
    expect(hasSecretParam('/orgs/:orgId/members/:userId')).toBe(false);
    expect(hasSecretParam('/healthz')).toBe(false);
  });
});
