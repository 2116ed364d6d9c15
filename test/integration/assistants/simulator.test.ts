import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../src/simulator/server.ts';
import { clearScripts, requestsFor, script, uniquePrompt } from './sim-helpers.ts';

/** The simulator's own control surface: health, scripts, request log, auth and determinism. */

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0, seed: 99 });
});
afterAll(async () => {
  await sim.close();
});

const ask = (url: string, prompt: string) =>
  fetch(`${url}/perplexity/chat/completions`, {
    method: 'POST',
    headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sonar', messages: [{ role: 'user', content: prompt }] }),
  });
const textOf = async (res: Response) =>
  ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]?.message.content;

describe('simulator control', () => {
  it('reports health', async () => {
    const res = await fetch(`${sim.url}/__sim/health`);
    expect(await res.json()).toMatchObject({ ok: true });
  });

  it('validates scripts', async () => {
    const res = await fetch(`${sim.url}/__sim/script`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'bing', fail: { status: 'x' } }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { fields: Record<string, string> }).fields).toHaveProperty('provider');
  });

  it('applies the latest matching script, and clears them all on DELETE', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { match: tag, text: 'first' });
    await script(sim.url, { provider: 'perplexity', match: tag, text: 'second' });
    await script(sim.url, { provider: 'openai', match: tag, text: 'other provider' });
    expect(await textOf(await ask(sim.url, prompt))).toMatch(/^second(\[\d+\])*$/);
    await clearScripts(sim.url);
    expect(await textOf(await ask(sim.url, prompt))).not.toMatch(/^(first|second)/);
  });

  it('fails the given number of times, then answers', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { provider: 'perplexity', match: tag, text: 'ok now', fail: { status: 429, times: 2 } });
    const first = await ask(sim.url, prompt);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('1');
    expect((await ask(sim.url, prompt)).status).toBe(429);
    expect(await textOf(await ask(sim.url, prompt))).toMatch(/^ok now/);
  });

  it('delays by latencyMs', async () => {
    const { prompt, tag } = uniquePrompt();
    await script(sim.url, { match: tag, latencyMs: 200 });
    const started = Date.now();
    await ask(sim.url, prompt);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });

  it('lists what it was asked, with provider, path and prompt', async () => {
    const { prompt, tag } = uniquePrompt();
    await ask(sim.url, prompt);
    const [logged] = await requestsFor(sim.url, tag);
    expect(logged).toMatchObject({
      provider: 'perplexity',
      path: '/chat/completions',
      method: 'POST',
      prompt,
      model: 'sonar',
    });
    expect(Date.parse(logged?.time ?? '')).not.toBeNaN();
  });

  it('counts requests per provider past the 2000 entries of the log, and clears the counts with it', async () => {
    await fetch(`${sim.url}/__sim/requests`, { method: 'DELETE' });
    await Promise.all(
      Array.from({ length: 3 }, () => ask(sim.url, uniquePrompt().prompt).then((r) => r.arrayBuffer())),
    );
    const counted = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as {
      requests: unknown[];
      counts: Record<string, number>;
    };
    expect(counted.counts).toEqual({ perplexity: 3 });
    expect(counted.requests).toHaveLength(3);
    // Long runs (benches) keep counting after the log trims its oldest entries.
    await Promise.all(
      Array.from({ length: 2005 }, (_, i) => ask(sim.url, `count me ${i}`).then((r) => r.arrayBuffer())),
    );
    const long = (await (await fetch(`${sim.url}/__sim/requests`)).json()) as {
      requests: unknown[];
      counts: Record<string, number>;
    };
    expect(long.requests).toHaveLength(2000);
    expect(long.counts).toEqual({ perplexity: 2008 });
    await fetch(`${sim.url}/__sim/requests`, { method: 'DELETE' });
    expect(
      ((await (await fetch(`${sim.url}/__sim/requests`)).json()) as { counts: Record<string, number> }).counts,
    ).toEqual({});
  });

  it('wants a key on every provider route and 404s unknown paths', async () => {
    expect(
      (
        await fetch(`${sim.url}/openai/v1/responses`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(401);
    expect((await fetch(`${sim.url}/serp/search.json?engine=google&q=x`)).status).toBe(401);
    expect(
      (await fetch(`${sim.url}/gemini/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', body: '{}' }))
        .status,
    ).toBe(401);
    expect((await fetch(`${sim.url}/nowhere`)).status).toBe(404);
  });

  it('gives the same answer for the same seed and prompt, another for another seed', async () => {
    const twin = await startSimulator({ port: 0, seed: 99 });
    const other = await startSimulator({ port: 0, seed: 100 });
    try {
      const prompt = 'What are the best project management tools for agencies?';
      const a = await textOf(await ask(sim.url, prompt));
      expect(await textOf(await ask(twin.url, prompt))).toBe(a);
      expect(await textOf(await ask(other.url, prompt))).not.toBe(a);
    } finally {
      await twin.close();
      await other.close();
    }
  });
});
