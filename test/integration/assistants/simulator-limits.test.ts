import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssistantError } from '../../../src/assistants/assistant-error.ts';
import type { ProviderKey } from '../../../src/assistants/catalog.ts';
import { startSimulator, type Simulator } from '../../../src/simulator/index.ts';
import { testAssistants, uniquePrompt } from './sim-helpers.ts';

/**
 * The simulator's account limits: past its requests per minute it answers
 * 429 in each provider's own format, with how long to wait (Retry-After, or
 * Google's RetryInfo), and the adapters read that wait through the real SDKs.
 */

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(() => sim.close());

async function setLimits(body: unknown): Promise<Response> {
  return fetch(`${sim.url}/__sim/limits`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const cases: { provider: ProviderKey; model?: string; upstream: string }[] = [
  { provider: 'openai', upstream: 'openai' },
  { provider: 'anthropic', upstream: 'anthropic' },
  { provider: 'perplexity', upstream: 'perplexity' },
  { provider: 'gemini', upstream: 'gemini' },
  { provider: 'google-ai-mode', upstream: 'serp' },
  { provider: 'openai', model: 'chatgpt-app', upstream: 'appGateway' },
];

describe('simulator account limits', () => {
  it('refuses limits that are not requests per minute per upstream', async () => {
    expect((await setLimits({ openai: 0 })).status).toBe(422);
    expect((await setLimits({ nobody: 10 })).status).toBe(422);
  });

  it.each(cases)(
    'answers $upstream past its limit with a 429 the adapter reads the wait from',
    async ({ provider, model, upstream }) => {
      await fetch(`${sim.url}/__sim/limits`, { method: 'DELETE' });
      // One request a minute and a bucket of one: the first call passes, the next is refused for about a minute.
      expect((await setLimits({ [upstream]: { rpm: 1, burst: 1 } })).status).toBe(200);
      const assistants = testAssistants(sim.url, { retry: { attempts: 1 } });
      const { prompt } = uniquePrompt();
      const ok = await assistants.ask({ provider, model, prompt });
      expect(ok.text.length).toBeGreaterThan(0);
      const refused = await assistants.ask({ provider, model, prompt }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(AssistantError);
      const error = refused as AssistantError;
      expect(error.reason).toBe('rate_limited');
      expect(error.status).toBe(429);
      // 60 s for the next token of a 1-rpm bucket, give or take the time the first call took.
      expect(error.retryAfterMs).toBeGreaterThanOrEqual(55_000);
      expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
      const counts = (await (await fetch(`${sim.url}/__sim/limits`)).json()) as {
        counts: Record<string, { accepted: number; limited: number }>;
      };
      expect(counts.counts[upstream]).toEqual({ accepted: 1, limited: 1 });
      // Other upstreams are not limited.
      const other = provider === 'anthropic' ? 'openai' : 'anthropic';
      await expect(assistants.ask({ provider: other, prompt })).resolves.toBeTruthy();
    },
  );

  it('sends each provider wire format of a 429', async () => {
    await fetch(`${sim.url}/__sim/limits`, { method: 'DELETE' });
    await setLimits({
      openai: { rpm: 1, burst: 1 },
      anthropic: { rpm: 1, burst: 1 },
      gemini: { rpm: 1, burst: 1 },
      perplexity: { rpm: 1, burst: 1 },
      serp: { rpm: 1, burst: 1 },
    });
    const hit = async (path: string) => {
      await fetch(`${sim.url}${path}`, { method: 'POST' });
      return fetch(`${sim.url}${path}`, { method: 'POST' });
    };

    const openai = await hit('/openai/v1/responses');
    expect(openai.status).toBe(429);
    expect(Number(openai.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(openai.headers.get('x-ratelimit-limit-requests')).toBe('1');
    expect(openai.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(openai.headers.get('x-ratelimit-reset-requests')).toMatch(/^\d+ms$/);
    const openaiBody = (await openai.json()) as { error: Record<string, unknown> };
    expect(openaiBody.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });
    expect(openaiBody.error.message).toMatch(
      /^Rate limit reached for .* on requests per min \(RPM\): Limit 1, Used 1, Requested 1\./,
    );

    const anthropic = await hit('/anthropic/v1/messages');
    expect(anthropic.status).toBe(429);
    expect(Number(anthropic.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(anthropic.headers.get('anthropic-ratelimit-requests-limit')).toBe('1');
    expect(anthropic.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(anthropic.headers.get('anthropic-ratelimit-requests-reset')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(await anthropic.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });

    const gemini = await hit('/gemini/v1beta/models/gemini-2.5-flash:generateContent');
    expect(gemini.status).toBe(429);
    // Google sends the wait in the body, not as a header.
    expect(gemini.headers.get('retry-after')).toBeNull();
    const geminiBody = (await gemini.json()) as {
      error: { code: number; status: string; details: Record<string, unknown>[] };
    };
    expect(geminiBody.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
    const retryInfo = geminiBody.error.details.find((d) => d['@type'] === 'type.googleapis.com/google.rpc.RetryInfo');
    expect(retryInfo?.retryDelay).toMatch(/^\d+s$/);
    expect(geminiBody.error.details.some((d) => d['@type'] === 'type.googleapis.com/google.rpc.QuotaFailure')).toBe(
      true,
    );

    const perplexity = await hit('/perplexity/chat/completions');
    expect(perplexity.status).toBe(429);
    expect(Number(perplexity.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(await perplexity.json()).toMatchObject({ error: { type: 'rate_limit_exceeded', code: 429 } });

    const serp = await hit('/serp/search.json');
    expect(serp.status).toBe(429);
    expect(Number(serp.headers.get('retry-after'))).toBeGreaterThanOrEqual(55);
    expect(typeof ((await serp.json()) as { error: unknown }).error).toBe('string');

    await fetch(`${sim.url}/__sim/limits`, { method: 'DELETE' });
    expect((await fetch(`${sim.url}/openai/v1/responses`, { method: 'POST' })).status).not.toBe(429);
  });

  it('holds a burst: a bucket of ten takes ten requests at once, then refuses', async () => {
    await fetch(`${sim.url}/__sim/limits`, { method: 'DELETE' });
    await setLimits({ perplexity: { rpm: 6, burst: 10 } });
    const statuses: number[] = [];
    // Ten fit the bucket; the eleventh does not (a token takes 10 s to come back).
    for (let i = 0; i < 11; i++)
      statuses.push((await fetch(`${sim.url}/perplexity/nowhere`, { method: 'POST' })).status);
    expect(statuses.slice(0, 10).every((s) => s !== 429)).toBe(true);
    expect(statuses[10]).toBe(429);
    await fetch(`${sim.url}/__sim/limits`, { method: 'DELETE' });
  });
});
