import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AssistantError } from '../../../src/assistants/assistant-error.ts';
import { findModel, type ProviderKey } from '../../../src/assistants/catalog.ts';
import type { Assistants } from '../../../src/assistants/types.ts';
import { startSimulator, type Simulator } from '../../../src/simulator/server.ts';
import { requestsFor, script, testAssistants, uniquePrompt } from './sim-helpers.ts';

/**
 * Every adapter against the simulator on its real wire format: the official
 * SDKs for Anthropic and Gemini (and OpenAI's batches), plain JSON over
 * node:http for the rest and for OpenAI's answers.
 */

interface Case {
  name: string;
  provider: ProviderKey;
  model?: string;
  /** The provider key scripts and the request log use for this path. */
  simProvider: string;
  searches: boolean;
}

const CASES: Case[] = [
  { name: 'openai (Responses API)', provider: 'openai', simProvider: 'openai', searches: true },
  {
    name: 'anthropic (Messages API)',
    provider: 'anthropic',
    model: 'claude-haiku-4-5',
    simProvider: 'anthropic',
    searches: true,
  },
  { name: 'perplexity (Sonar)', provider: 'perplexity', simProvider: 'perplexity', searches: false },
  { name: 'gemini (generateContent)', provider: 'gemini', simProvider: 'gemini', searches: true },
  {
    name: 'google-ai-overview (SERP)',
    provider: 'google-ai-overview',
    simProvider: 'google-ai-overview',
    searches: true,
  },
  { name: 'google-ai-mode (SERP)', provider: 'google-ai-mode', simProvider: 'google-ai-mode', searches: true },
  {
    name: 'chatgpt-app (app gateway)',
    provider: 'openai',
    model: 'chatgpt-app',
    simProvider: 'openai',
    searches: true,
  },
  { name: 'gemini-app (app gateway)', provider: 'gemini', model: 'gemini-app', simProvider: 'gemini', searches: true },
];

let sim: Simulator;
let assistants: Assistants;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 11, jobDelayMs: 100 });
  assistants = testAssistants(sim.url);
});
afterAll(async () => {
  await sim.close();
});

describe.each(CASES)('$name', (c) => {
  const ask = (prompt: string, extra: { context?: string; location?: string; language?: string } = {}) =>
    assistants.ask({ provider: c.provider, model: c.model, prompt, ...extra });

  it('answers with text, citations, searches, model, price and raw JSON', async () => {
    const { prompt } = uniquePrompt();
    const answer = await ask(prompt, { location: 'United States', language: 'English' });
    const entry = findModel(c.provider, c.model ?? answer.requestedModel);
    expect(answer.text.length).toBeGreaterThan(50);
    expect(answer.text).toMatch(/\*\*\w|- \w/);
    expect(answer.citations.length).toBeGreaterThan(0);
    for (const citation of answer.citations) {
      expect(citation.url).toMatch(/^https:\/\//);
      expect(citation.domain).toMatch(/\./);
      expect(citation.domain).not.toBe('vertexaisearch.cloud.google.com');
    }
    expect(
      answer.citations.some(
        (x) => x.startIndex !== undefined && answer.text.slice(x.startIndex, x.endIndex).length > 0,
      ),
    ).toBe(true);
    if (c.searches) expect(answer.searches.length).toBeGreaterThan(0);
    else expect(answer.searches).toEqual([]);
    expect(answer.model).toBeTruthy();
    expect(answer.costMicros).toBe(entry?.priceMicros);
    expect(answer.target).toBe('simulator');
    expect(answer.truncated).toBe(false);
    expect(typeof answer.raw).toBe('object');
  });

  it('uses scripted text and citations verbatim', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, {
      provider: c.simProvider as ProviderKey,
      match: tag,
      text: 'Acme is the top pick.\nGlobex is second.',
      citations: [{ url: 'https://acme.com/pricing', title: 'Acme pricing' }],
      searches: ['acme crm'],
      pageToken: true,
    });
    const answer = await ask(prompt);
    expect(answer.text).toContain('Acme is the top pick.');
    expect(answer.citations[0]).toMatchObject({ domain: 'acme.com' });
    if (c.provider === 'google-ai-overview' || c.provider === 'google-ai-mode')
      expect(answer.searches).toEqual([expect.stringContaining(tag)]);
    else if (c.searches) expect(answer.searches).toEqual(['acme crm']);
  });

  it('passes persona context, location and language the way the provider takes them', async () => {
    const isApp = c.model?.endsWith('-app') ?? false;
    const { prompt, tag } = uniquePrompt();
    await ask(prompt, { context: 'I run a five-person design studio', location: 'Germany', language: 'German' });
    const [logged] = await requestsFor(sim.url, tag);
    expect(logged).toBeDefined();
    switch (c.provider) {
      case 'google-ai-overview':
        expect(logged?.location).toBe('de');
        expect(logged?.language).toBe('de');
        expect(logged?.prompt).not.toContain('design studio');
        break;
      case 'google-ai-mode':
        expect(logged?.location).toBe('de');
        expect(logged?.prompt).toContain('I run a five-person design studio');
        break;
      case 'gemini':
        expect(logged?.system).toContain('I run a five-person design studio');
        if (!isApp) expect(logged?.system).toContain('The person asking is in Germany.');
        else expect(logged?.location).toBe('DE');
        break;
      default:
        expect(logged?.system).toContain('I run a five-person design studio');
        expect(logged?.location).toBe('DE');
    }
    if (!c.provider.startsWith('google-') && !isApp) expect(logged?.system).toContain('Answer in German.');
    if (isApp) expect(logged?.language).toBe('German');
  });

  it('retries a 429 after its Retry-After, then succeeds', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, {
      provider: c.simProvider as ProviderKey,
      match: tag,
      fail: { status: 429, times: 1, retryAfter: 0.3 },
      pageToken: false,
    });
    const started = Date.now();
    const answer = await ask(prompt);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(answer.text.length).toBeGreaterThan(0);
    expect(await requestsFor(sim.url, tag)).toHaveLength(2);
  });

  it('does not retry a permanent 400', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: c.simProvider as ProviderKey, match: tag, fail: { status: 400, times: 5 } });
    const err = await ask(prompt).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AssistantError);
    expect(err).toMatchObject({ kind: 'permanent', status: 400 });
    expect(await requestsFor(sim.url, tag)).toHaveLength(1);
  });

  it('gives up on a 500 after 3 attempts in all', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: c.simProvider as ProviderKey, match: tag, fail: { status: 500, times: 10 } });
    const err = await ask(prompt).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'retryable', reason: 'server_error', status: 500 });
    expect(await requestsFor(sim.url, tag)).toHaveLength(3);
  });

  it('turns an HTML page in place of JSON into a permanent error', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, {
      provider: c.simProvider as ProviderKey,
      match: tag,
      fail: {
        status: 200,
        times: 1,
        body: '<!DOCTYPE html><html><body>Captive portal</body></html>',
        contentType: 'text/html',
      },
    });
    const err = await ask(prompt).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'permanent', reason: 'malformed_response' });
    expect(await requestsFor(sim.url, tag)).toHaveLength(1);
  });

  it('times out slow answers as retryable, trying 3 times', async () => {
    const fast = testAssistants(sim.url, { timeoutMs: 150 });
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: c.simProvider as ProviderKey, match: tag, latencyMs: 2000 });
    const started = Date.now();
    const err = await fast.ask({ provider: c.provider, model: c.model, prompt }).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'retryable', reason: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await requestsFor(sim.url, tag)).toHaveLength(3);
  });
});

describe('resilience details', () => {
  it('honours a whole-second Retry-After', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'openai', match: tag, fail: { status: 429, times: 1, retryAfter: 1 } });
    const started = Date.now();
    await assistants.ask({ provider: 'openai', prompt });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('retries a 502 proxy page (HTML) as a server error', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, {
      provider: 'perplexity',
      match: tag,
      fail: { status: 502, times: 1, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
    });
    const answer = await assistants.ask({ provider: 'perplexity', prompt });
    expect(answer.text.length).toBeGreaterThan(0);
    expect(await requestsFor(sim.url, tag)).toHaveLength(2);
  });

  it('stops at once when the caller aborts, rethrowing the abort', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { match: tag, latencyMs: 3000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new DOMException('scan cancelled', 'AbortError')), 100);
    const started = Date.now();
    const err = await assistants
      .ask({ provider: 'anthropic', model: 'claude-haiku-4-5', prompt }, { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AbortError' });
    expect(err).not.toBeInstanceOf(AssistantError);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('classifies a refused connection as retryable after 3 attempts', async () => {
    const closed = await startSimulator({ port: 0 });
    const url = closed.url;
    await closed.close();
    const err = await testAssistants(url)
      .ask({ provider: 'gemini', prompt: 'best crm?' })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'retryable', reason: 'connection' });
  });

  it('cuts answers over 200 KB and flags them', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'openai', match: tag, text: 'Acme is great. '.repeat(20_000), citations: [] });
    const answer = await assistants.ask({ provider: 'openai', prompt });
    expect(answer.truncated).toBe(true);
    expect(Buffer.byteLength(answer.text)).toBeLessThanOrEqual(200 * 1024);
  });

  it('rejects unknown models and empty prompts without calling out', async () => {
    await expect(assistants.ask({ provider: 'openai', model: 'gpt-0', prompt: 'x' })).rejects.toMatchObject({
      kind: 'permanent',
      reason: 'unsupported',
    });
    await expect(assistants.ask({ provider: 'openai', prompt: '   ' })).rejects.toMatchObject({
      kind: 'permanent',
      reason: 'bad_request',
    });
  });

  it('limits concurrent calls per upstream', async () => {
    const limited = testAssistants(sim.url, { concurrency: { perplexity: 2 } });
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'perplexity', match: tag, latencyMs: 200 });
    const started = Date.now();
    await Promise.all([1, 2, 3, 4].map((i) => limited.ask({ provider: 'perplexity', prompt: `${prompt} #${i}` })));
    expect(Date.now() - started).toBeGreaterThanOrEqual(390);
  });

  it('follows the AI Overview page_token with engine=google_ai_overview', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'google-ai-overview', match: tag, pageToken: true });
    const answer = await assistants.ask({ provider: 'google-ai-overview', prompt });
    const raw = answer.raw as { search: { ai_overview: { page_token?: string } }; aiOverview?: unknown };
    expect(raw.search.ai_overview.page_token).toBeTruthy();
    expect(raw.aiOverview).toBeDefined();
    expect((await requestsFor(sim.url, tag)).map((r) => r.path)).toEqual(['/search.json', '/search.json']);
  });
});
