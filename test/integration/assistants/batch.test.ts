import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findModel, type ProviderKey } from '../../../src/assistants/catalog.ts';
import type { Assistants, BatchHandle, BatchPoll } from '../../../src/assistants/types.ts';
import { startSimulator, type Simulator } from '../../../src/simulator/server.ts';
import { requestsFor, script, testAssistants, uniquePrompt } from './sim-helpers.ts';

/** Batch APIs (OpenAI, Anthropic, Gemini) and the app gateway queue, submit then poll. */

let sim: Simulator;
let assistants: Assistants;

beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 5, jobDelayMs: 150 });
  assistants = testAssistants(sim.url);
});
afterAll(async () => {
  await sim.close();
});

async function pollUntilDone(handle: BatchHandle): Promise<Extract<BatchPoll, { done: true }>> {
  for (let i = 0; i < 50; i++) {
    const outcome = await assistants.pollBatch(handle);
    if (outcome.done) return outcome;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('batch never finished');
}

const BATCHES: { provider: ProviderKey; model?: string; kind: 'batch' | 'queue'; simProvider: ProviderKey }[] = [
  { provider: 'openai', kind: 'batch', simProvider: 'openai' },
  { provider: 'anthropic', model: 'claude-haiku-4-5', kind: 'batch', simProvider: 'anthropic' },
  { provider: 'gemini', kind: 'batch', simProvider: 'gemini' },
  { provider: 'openai', model: 'chatgpt-app-queue', kind: 'queue', simProvider: 'openai' },
  { provider: 'gemini', model: 'gemini-app-queue', kind: 'queue', simProvider: 'gemini' },
];

describe.each(BATCHES)('$provider $model $kind', (b) => {
  it('submits, reports not done, then returns every prompt in order, priced', async () => {
    const { prompt, tag } = uniquePrompt();
    // Ready only after 1.5 s, so the first poll sees it unfinished even on a loaded machine.
    await script(sim.url, { provider: b.simProvider, match: tag, readyAfterMs: 1500 });
    await script(sim.url, { provider: b.simProvider, match: `${tag}) bad`, fail: { status: 400, times: 1 } });
    const handle = await assistants.submitBatch([
      {
        id: 'p1',
        provider: b.provider,
        model: b.model,
        prompt: `${prompt} one`,
        context: 'I am a CFO',
        location: 'France',
        language: 'French',
      },
      { id: 'p2', provider: b.provider, model: b.model, prompt: `${prompt} bad` },
      { id: 'p3', provider: b.provider, model: b.model, prompt: `${prompt} three` },
    ]);
    // The handle lives in a job payload: it must survive JSON.
    const stored = JSON.parse(JSON.stringify(handle)) as BatchHandle;
    expect(stored).toMatchObject({
      version: 1,
      kind: b.kind,
      provider: b.provider,
      target: 'simulator',
      ids: ['p1', 'p2', 'p3'],
    });

    const first = await assistants.pollBatch(stored);
    expect(first.done).toBe(false);

    const done = await pollUntilDone(stored);
    expect(done.results.map((r) => r.id)).toEqual(['p1', 'p2', 'p3']);
    const [one, bad, three] = done.results;
    const entry = findModel(b.provider, b.model ?? handle.model);
    const price = b.kind === 'batch' ? entry?.batchPriceMicros : entry?.priceMicros;
    for (const ok of [one, three]) {
      expect(ok?.ok).toBe(true);
      if (ok?.ok) {
        expect(ok.answer.text.length).toBeGreaterThan(50);
        expect(ok.answer.citations.length).toBeGreaterThan(0);
        expect(ok.answer.costMicros).toBe(price);
      }
    }
    expect(bad).toMatchObject({ ok: false, error: { kind: 'permanent' } });

    const [logged] = await requestsFor(sim.url, `${tag}) one`);
    expect(logged?.system ?? '').toContain('I am a CFO');
  });

  it('waits for readyAfterMs from a script', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: b.simProvider, match: tag, readyAfterMs: 600 });
    const handle = await assistants.submitBatch([{ id: 'only', provider: b.provider, model: b.model, prompt }]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await assistants.pollBatch(handle)).done).toBe(false);
    await new Promise((r) => setTimeout(r, 400));
    expect((await assistants.pollBatch(handle)).done).toBe(true);
  });
});

describe('batch edges', () => {
  it.each([
    ['openai', 'chatgpt-app-queue'],
    ['gemini', 'gemini-app-queue'],
  ] as const)('answers %s %s through ask() by polling', async (provider, model) => {
    const { prompt } = uniquePrompt();
    const answer = await assistants.ask({ provider, model, prompt });
    expect(answer.requestedModel).toBe(model);
    expect(answer.citations.length).toBeGreaterThan(0);
    expect(answer.costMicros).toBe(findModel(provider, model)?.priceMicros);
  });

  it('throws a retryable error when a poll cannot reach the upstream, so the job can poll again later', async () => {
    const other = await startSimulator({ port: 0, jobDelayMs: 50 });
    const client = testAssistants(other.url);
    const handle = await client.submitBatch([
      { id: 'a', provider: 'anthropic', model: 'claude-haiku-4-5', prompt: 'best crm?' },
    ]);
    await other.close();
    await expect(client.pollBatch(handle)).rejects.toMatchObject({ kind: 'retryable', reason: 'connection' });
  });

  it('refuses mixed, unbatchable or badly keyed batches', async () => {
    await expect(
      assistants.submitBatch([
        { id: 'a', provider: 'openai', prompt: 'x' },
        { id: 'b', provider: 'anthropic', prompt: 'y' },
      ]),
    ).rejects.toMatchObject({ kind: 'permanent', reason: 'bad_request' });
    await expect(assistants.submitBatch([{ id: 'a', provider: 'perplexity', prompt: 'x' }])).rejects.toMatchObject({
      reason: 'unsupported',
    });
    await expect(assistants.submitBatch([{ id: 'has space', provider: 'openai', prompt: 'x' }])).rejects.toMatchObject({
      reason: 'bad_request',
    });
    await expect(assistants.submitBatch([])).rejects.toMatchObject({ reason: 'bad_request' });
  });
});
