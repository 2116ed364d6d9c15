import { describe, expect, it } from 'vitest';
import {
  applyOverride,
  brandsInPrompt,
  generateAnswer,
  layout,
  topicOf,
  withMention,
} from '../../../src/simulator/answer.ts';
import { createRng } from '../../../src/simulator/rng.ts';
import { handleItem, type SimContext } from '../../../src/simulator/sim-context.ts';
import { SimState } from '../../../src/simulator/state.ts';
import { ScriptBook } from '../../../src/simulator/script.ts';
import { SIM_BRANDS } from '../../../src/simulator/words.ts';

describe('simulated answers', () => {
  const input = {
    seed: 7,
    provider: 'openai',
    model: 'gpt-5-mini',
    prompt: 'What are the best CRM tools for agencies like HubSpot?',
  };

  it('are deterministic for one seed and prompt, and vary with the seed', () => {
    expect(generateAnswer(input)).toEqual(generateAnswer(input));
    expect(layout(generateAnswer(input)).text).not.toBe(layout(generateAnswer({ ...input, seed: 8 })).text);
  });

  it('name the prompt brand among seeded brands in a numbered list, each citing a source', () => {
    const answer = generateAnswer(input);
    const items = answer.blocks.filter((b) => b.kind === 'item');
    expect(items.length).toBeGreaterThanOrEqual(3);
    expect(items.map((b) => (b.kind === 'item' ? b.title : ''))).toContain('HubSpot');
    const others = items.map((b) => (b.kind === 'item' ? b.title : '')).filter((t) => t !== 'HubSpot');
    expect(others.every((t) => (SIM_BRANDS as readonly string[]).includes(t))).toBe(true);
    expect(items.every((b) => b.cites.length === 1)).toBe(true);
    expect(layout(answer).text).toMatch(/\n1\. \*\*\w+/);
    expect(answer.searches.length).toBeGreaterThanOrEqual(1);
    expect(answer.sources.some((s) => s.url.startsWith('https://www.') && s.domain.endsWith('.com'))).toBe(true);
  });

  it('find brand-like names and the topic in prompts', () => {
    expect(brandsInPrompt('Is Asana better than monday.com for a CRM?')).toEqual(['Monday', 'Asana']);
    expect(brandsInPrompt('What is the best VPN?')).toEqual([]);
    expect(topicOf('What are the best CRM tools for startups?')).toBe('the best CRM tools for startups');
    expect(topicOf('Which running shoe is best for beginners?')).toBe('the best running shoe');
  });

  it('take scripted text verbatim, spreading scripted citations over its paragraphs', () => {
    const answer = applyOverride(generateAnswer(input), {
      text: 'First line.\nSecond line.',
      citations: [{ url: 'https://a.com/x', title: 'A' }, { url: 'https://b.com/' }],
      searches: ['q'],
    });
    expect(layout(answer).text).toBe('First line.\nSecond line.');
    expect(answer.blocks.map((b) => b.cites)).toEqual([[0], [1]]);
    expect(answer.sources[1]).toMatchObject({ domain: 'b.com', title: 'b.com' });
    expect(answer.searches).toEqual(['q']);
  });
});

describe('script book', () => {
  it('lets later scripts win and counts failures down per matching request', () => {
    const book = new ScriptBook();
    book.add({ match: 'crm', text: 'old' });
    const s = book.add({ provider: 'openai', match: 'CRM', fail: { status: 429, times: 2 } });
    expect(book.find('openai', 'best crm?')).toBe(s);
    expect(book.find('anthropic', 'best crm?')?.text).toBe('old');
    expect(book.takeFailure(s)?.status).toBe(429);
    expect(book.takeFailure(s)?.status).toBe(429);
    expect(book.takeFailure(s)).toBeUndefined();
    book.clear();
    expect(book.find('openai', 'best crm?')).toBeUndefined();
  });

  it('rejects malformed scripts', () => {
    expect(() => new ScriptBook().add({ provider: 'bing' })).toThrow();
    expect(() => new ScriptBook().add({ fail: { status: 42 } })).toThrow();
  });
});

describe('answers at random (mention scripts)', () => {
  const input = {
    seed: 7,
    provider: 'openai',
    model: 'gpt-5-mini',
    prompt: 'What are the best CRM tools for agencies like HubSpot?',
  };
  const titles = (a: ReturnType<typeof generateAnswer>) =>
    a.blocks.flatMap((b) => (b.kind === 'item' ? [`${b.n}:${b.title}`] : []));

  it('put the name in the numbered list, or take it out with the sources only it cited', () => {
    const base = generateAnswer(input);
    const named = withMention(base, 'Acme', true, createRng(3));
    expect(titles(named).some((t) => t.endsWith(':Acme'))).toBe(true);
    expect(titles(named).map((t) => Number(t.split(':')[0]))).toEqual(titles(named).map((_, i) => i + 1));
    expect(layout(named).text).toMatch(/\*\*Acme\*\*/);
    const without = withMention(base, 'hubspot', false, createRng(3));
    expect(titles(without).some((t) => t.includes('HubSpot'))).toBe(false);
    expect(without.sources.some((s) => s.domain === 'hubspot.com')).toBe(false);
    for (const b of without.blocks) for (const c of b.cites) expect(without.sources[c]).toBeDefined();
  });

  it('name the brand in about the set share of requests, the same run for a seed', () => {
    const run = (seed: number) => {
      const ctx: SimContext = { state: new SimState(), seed: 42, jobDelayMs: 0, delay: () => Promise.resolve() };
      ctx.state.scripts.add({ match: 'crm', mention: { name: 'Acme', probability: 0.3, seed } });
      const req = {
        method: 'POST',
        path: '/v1/responses',
        query: new URLSearchParams(),
        headers: {},
        json: null,
        raw: Buffer.alloc(0),
        origin: 'http://sim',
      };
      const asked = {
        provider: 'openai',
        model: 'gpt-5-mini',
        prompt: 'Which CRM should an agency pick?',
        system: null,
        location: null,
        language: null,
      };
      const answers = Array.from({ length: 2000 }, () => handleItem(ctx, req, asked).answer);
      return answers.map((a) => (layout(a).text.includes('**Acme**') ? 1 : 0));
    };
    const first = run(5);
    const share = first.reduce((n: number, x) => n + x, 0) / first.length;
    expect(share).toBeGreaterThan(0.27);
    expect(share).toBeLessThan(0.33);
    expect(run(5)).toEqual(first);
    expect(run(6)).not.toEqual(first);
    expect(() => new ScriptBook().add({ mention: { name: 'Acme', probability: 1.5 } })).toThrow();
  });
});
