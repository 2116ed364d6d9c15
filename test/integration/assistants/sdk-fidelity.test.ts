import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/server.ts';
import { script, uniquePrompt } from './sim-helpers.ts';

/**
 * The simulator driven by the official SDKs, configured only with a base
 * URL and a dummy key: proof that it speaks each provider's wire format.
 */

let sim: Simulator;
let openai: OpenAI;
let anthropic: Anthropic;
let genai: GoogleGenAI;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 3, jobDelayMs: 100 });
  openai = new OpenAI({ apiKey: 'sim', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sim', baseURL: `${sim.url}/anthropic`, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: 'sim', vertexai: false, httpOptions: { baseUrl: `${sim.url}/gemini` } });
});
afterAll(async () => {
  await sim.close();
});

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('openai SDK', () => {
  it('creates a Responses API answer with web search calls and url_citation annotations', async () => {
    const response = await openai.responses.create({
      model: 'gpt-5-mini',
      input: 'What are the best CRM tools for agencies?',
      tools: [{ type: 'web_search', user_location: { type: 'approximate', country: 'US' } }],
    });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text.length).toBeGreaterThan(50);
    const searches = response.output.filter((o) => o.type === 'web_search_call');
    expect(searches.length).toBeGreaterThan(0);
    const message = response.output.find((o) => o.type === 'message');
    const part = message?.type === 'message' ? message.content[0] : undefined;
    expect(part?.type).toBe('output_text');
    if (part?.type === 'output_text') {
      const annotation = part.annotations[0];
      expect(annotation?.type).toBe('url_citation');
      if (annotation?.type === 'url_citation')
        expect(part.text.slice(annotation.start_index, annotation.end_index)).toContain(annotation.url);
    }
    expect(response.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('runs the Files + Batches flow for /v1/responses', async () => {
    const line = {
      custom_id: 'r1',
      method: 'POST',
      url: '/v1/responses',
      body: { model: 'gpt-5-mini', input: 'best crm?', tools: [{ type: 'web_search' }] },
    };
    const file = await openai.files.create({
      file: await toFile(Buffer.from(`${JSON.stringify(line)}\n`), 'in.jsonl'),
      purpose: 'batch',
    });
    expect(file.id).toMatch(/^file-/);
    const batch = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/responses',
      completion_window: '24h',
    });
    expect(batch.status).toBe('in_progress');
    await wait(150);
    const done = await openai.batches.retrieve(batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toMatchObject({ total: 1, completed: 1, failed: 0 });
    const output = await (await openai.files.content(done.output_file_id ?? '')).text();
    const result = JSON.parse(output.trim()) as {
      custom_id: string;
      response: { status_code: number; body: { object: string } };
    };
    expect(result).toMatchObject({ custom_id: 'r1', response: { status_code: 200, body: { object: 'response' } } });
  });

  it('surfaces a scripted 429 as RateLimitError with Retry-After', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'openai', match: tag, fail: { status: 429, times: 1, retryAfter: 2 } });
    const err = await openai.responses.create({ model: 'gpt-5-mini', input: prompt }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toBe('2');
  });

  it('serves Perplexity through the OpenAI-compatible chat completions client', async () => {
    const perplexity = new OpenAI({ apiKey: 'sim', baseURL: `${sim.url}/perplexity`, maxRetries: 0 });
    const completion = await perplexity.chat.completions.create({
      model: 'sonar',
      messages: [{ role: 'user', content: 'best crm for agencies?' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/\[1\]/);
    const extra = completion as unknown as { citations: string[]; search_results: { url: string; title: string }[] };
    expect(extra.citations.length).toBeGreaterThan(0);
    expect(extra.search_results[0]?.url).toBe(extra.citations[0]);
  });
});

describe('@anthropic-ai/sdk', () => {
  it('creates a Message with server_tool_use, web_search_tool_result and cited text', async () => {
    const message = await anthropic.messages.create({
      model: 'claude-haiku-4-5',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'What are the best CRM tools for agencies?' }],
      tools: [
        {
          type: 'web_search_20250305',
          name: 'web_search',
          max_uses: 3,
          user_location: { type: 'approximate', country: 'US' },
        },
      ],
    });
    expect(message.type).toBe('message');
    expect(message.stop_reason).toBe('end_turn');
    const types = message.content.map((b) => b.type);
    expect(types).toContain('server_tool_use');
    expect(types).toContain('web_search_tool_result');
    const cited = message.content.find((b) => b.type === 'text' && (b.citations?.length ?? 0) > 0);
    expect(cited?.type === 'text' && cited.citations?.[0]?.type).toBe('web_search_result_location');
    expect(message.usage.server_tool_use?.web_search_requests).toBeGreaterThan(0);
  });

  it('runs a Message Batch and streams its JSONL results', async () => {
    const batch = await anthropic.messages.batches.create({
      requests: [
        {
          custom_id: 'r1',
          params: { model: 'claude-haiku-4-5', max_tokens: 512, messages: [{ role: 'user', content: 'best crm?' }] },
        },
      ],
    });
    expect(batch.processing_status).toBe('in_progress');
    await wait(150);
    const ended = await anthropic.messages.batches.retrieve(batch.id);
    expect(ended.processing_status).toBe('ended');
    expect(ended.results_url).toContain(`/anthropic/v1/messages/batches/${batch.id}/results`);
    const results = [];
    for await (const line of await anthropic.messages.batches.results(batch.id)) results.push(line);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ custom_id: 'r1', result: { type: 'succeeded', message: { type: 'message' } } });
  });

  it('surfaces a scripted 500 as InternalServerError', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'anthropic', match: tag, fail: { status: 500, times: 1 } });
    const err = await anthropic.messages
      .create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: prompt }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.InternalServerError);
  });
});

describe('@google/genai', () => {
  it('generates grounded content with groundingMetadata', async () => {
    const response = await genai.models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'What are the best CRM tools for agencies?',
      config: { tools: [{ googleSearch: {} }] },
    });
    expect(response.text?.length).toBeGreaterThan(50);
    const grounding = response.candidates?.[0]?.groundingMetadata;
    expect(grounding?.webSearchQueries?.length).toBeGreaterThan(0);
    expect(grounding?.groundingChunks?.[0]?.web?.uri).toMatch(/grounding-api-redirect/);
    const support = grounding?.groundingSupports?.[0];
    expect(support?.segment?.endIndex).toBeGreaterThan(support?.segment?.startIndex ?? 0);
    expect(response.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
    expect(response.modelVersion).toBe('gemini-2.5-flash');
  });

  it('creates and fetches an inline batch', async () => {
    const job = await genai.batches.create({
      model: 'gemini-2.5-flash',
      src: [{ contents: [{ role: 'user', parts: [{ text: 'best crm?' }] }], metadata: { key: 'r1' } }],
      config: { displayName: 'fidelity' },
    });
    expect(job.name).toMatch(/^batches\//);
    expect(job.state).toBe('JOB_STATE_PENDING');
    await wait(150);
    const done = await genai.batches.get({ name: job.name ?? '' });
    expect(done.state).toBe('JOB_STATE_SUCCEEDED');
    const first = done.dest?.inlinedResponses?.[0];
    expect(first?.metadata).toEqual({ key: 'r1' });
    expect(first?.response?.candidates?.[0]?.content?.parts?.[0]?.text?.length).toBeGreaterThan(10);
    expect(first?.response?.candidates?.[0]?.groundingMetadata?.groundingChunks?.length).toBeGreaterThan(0);
  });

  it('surfaces a scripted 429 as ApiError', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'gemini', match: tag, fail: { status: 429, times: 1 } });
    const err = await genai.models
      .generateContent({ model: 'gemini-2.5-flash', contents: prompt })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(429);
  });
});

describe('SERP API and app gateway over fetch', () => {
  it('returns an AI Overview (inline or behind a page_token) and AI Mode text blocks', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'google-ai-overview', match: tag, pageToken: true });
    const search = (await (
      await fetch(`${sim.url}/serp/search.json?engine=google&q=${encodeURIComponent(prompt)}&api_key=k`)
    ).json()) as { ai_overview: { page_token: string } };
    expect(search.ai_overview.page_token).toBeTruthy();
    const overview = (await (
      await fetch(
        `${sim.url}/serp/search.json?engine=google_ai_overview&page_token=${search.ai_overview.page_token}&api_key=k`,
      )
    ).json()) as {
      ai_overview: { text_blocks: unknown[]; references: unknown[] };
    };
    expect(overview.ai_overview.text_blocks.length).toBeGreaterThan(0);
    expect(overview.ai_overview.references.length).toBeGreaterThan(0);
    const mode = (await (
      await fetch(`${sim.url}/serp/search.json?engine=google_ai_mode&q=best+crm&api_key=k`)
    ).json()) as { text_blocks: unknown[]; references: unknown[] };
    expect(mode.text_blocks.length).toBeGreaterThan(0);
  });

  it('answers the app gateway at once and through a queued job', async () => {
    const headers = { authorization: 'Bearer k', 'content-type': 'application/json' };
    const now = (await (
      await fetch(`${sim.url}/app/v1/answers`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: 'chatgpt-app', prompt: 'best crm?' }),
      })
    ).json()) as {
      status: string;
      answer: { text: string };
    };
    expect(now).toMatchObject({ status: 'completed', answer: { text: expect.any(String) } });
    const submitted = await fetch(`${sim.url}/app/v1/jobs`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: 'gemini-app-queue', requests: [{ id: 'x', prompt: 'best crm?' }] }),
    });
    expect(submitted.status).toBe(202);
    const job = (await submitted.json()) as { id: string; status: string };
    expect(job.status).toBe('queued');
    await wait(150);
    const done = (await (await fetch(`${sim.url}/app/v1/jobs/${job.id}`, { headers })).json()) as {
      status: string;
      results: { id: string }[];
    };
    expect(done.status).toBe('completed');
    expect(done.results[0]?.id).toBe('x');
  });
});
