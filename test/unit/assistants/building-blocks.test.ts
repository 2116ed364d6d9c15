import { describe, expect, it } from 'vitest';
import { createAssistants } from '../../../src/assistants/assistants.ts';
import type { Config } from '../../../src/config.ts';
import { googleCountry, googleLanguage, resolveCountry, resolveLanguage } from '../../../src/assistants/locales.ts';
import { anthropicBatchResult } from '../../../src/assistants/providers/anthropic.ts';
import { geminiInlinedResult } from '../../../src/assistants/providers/gemini.ts';
import { openaiBatchLine } from '../../../src/assistants/providers/openai.ts';
import { resolveTarget } from '../../../src/assistants/targets.ts';
import { parseJsonBody } from '../../../src/assistants/http.ts';
import { capAnswer, rawJson, storedRaw } from '../../../src/assistants/truncate.ts';
import { createLogger } from '../../../src/logger.ts';
import { fixture, jsonl } from './fixtures.ts';

const none = { apiKey: undefined, baseUrl: undefined };
function assistantsConfig(overrides: Partial<Config['assistants']> = {}): Config['assistants'] {
  return {
    mode: 'auto',
    simulatorUrl: 'http://127.0.0.1:4010',
    simulatorPort: 4010,
    timeoutMs: 1000,
    concurrency: undefined,
    retryBaseMs: 1000,
    openai: none,
    anthropic: none,
    perplexity: none,
    gemini: none,
    serp: none,
    appGateway: none,
    ...overrides,
  };
}

describe('locales', () => {
  it('resolves country names and codes', () => {
    expect(resolveCountry('United States')).toEqual({ code: 'US', name: 'United States' });
    expect(resolveCountry('gb')).toEqual({ code: 'GB', name: 'United Kingdom' });
    expect(resolveCountry('Atlantis')).toEqual({ code: null, name: 'Atlantis' });
    expect(resolveCountry(undefined)).toEqual({ code: null, name: null });
  });

  it('resolves language names and codes', () => {
    expect(resolveLanguage('English')).toEqual({ code: 'en', name: 'English' });
    expect(resolveLanguage('pt-BR')).toEqual({ code: 'pt', name: 'Portuguese' });
    expect(resolveLanguage('Klingon')).toEqual({ code: null, name: 'Klingon' });
  });

  it("maps to Google's gl/hl conventions", () => {
    expect(googleCountry('GB')).toBe('uk');
    expect(googleCountry('DE')).toBe('de');
    expect(googleLanguage('zh', 'TW')).toBe('zh-tw');
    expect(googleLanguage('en', 'US')).toBe('en');
  });
});

describe('answer size cap', () => {
  it('cuts answers over the cap on a character boundary and clamps citation spans', () => {
    const text = `${'é'.repeat(60)}tail`;
    const capped = capAnswer(
      text,
      [
        { url: 'u', title: '', domain: '', startIndex: 10, endIndex: 64 },
        { url: 'v', title: '', domain: '', startIndex: 62, endIndex: 64 },
      ],
      101,
    );
    expect(capped.truncated).toBe(true);
    expect(capped.text).toBe('é'.repeat(50));
    expect(capped.citations).toEqual([{ url: 'u', title: '', domain: '', startIndex: 10, endIndex: 50 }]);
    expect(capAnswer('short', [], 100)).toEqual({ text: 'short', citations: [], truncated: false });
  });

  it('replaces oversized raw JSON with a note', () => {
    expect(JSON.parse(rawJson({ a: 'x'.repeat(100) }, 50))).toMatchObject({ omitted: true });
    expect(JSON.parse(rawJson({ a: 1 }, 50))).toEqual({ a: 1 });
    // Counted in UTF-8 bytes: 10 three-byte characters are 30 bytes, over a 25-byte cap though only 10 UTF-16 units.
    expect(JSON.parse(rawJson({ a: '€'.repeat(10) }, 25))).toMatchObject({ omitted: true });
    expect(JSON.parse(rawJson({ a: '€'.repeat(5) }, 25))).toEqual({ a: '€'.repeat(5) });
  });

  it('stores a parsed response as the text it was read from, unless that text escapes a character', () => {
    const text = '{ "id": "resp_1",\n  "output": [{ "text": "Acme – fine" }] }';
    const parsed = parseJsonBody(text, 'application/json', 'openai');
    expect(rawJson(parsed)).toBe(text);
    expect(JSON.parse(rawJson(parsed))).toEqual(parsed);
    // Escapes (a NUL, half a surrogate pair) are made storable on the serialised value, as before.
    const escaped = parseJsonBody('{"a":"x\\u0000y","b":"\\ud83d"}', 'application/json', 'openai');
    expect(rawJson(escaped)).toBe('{"a":"x\\ufffdy","b":"\\ufffd"}');
    // Anything not parsed from a body (a SERP search with its AI Overview) is serialised.
    expect(rawJson({ search: parsed })).toBe(JSON.stringify({ search: parsed }));
    // The cap holds for the text too.
    expect(JSON.parse(rawJson(parsed, 20))).toMatchObject({ omitted: true });
  });

  it('stores a parsed response as the bytes it came as when they are valid UTF-8 and escape nothing', () => {
    const json = '{ "id": "resp_1",\n  "output": [{ "text": "Acme – fine" }] }';
    // A buffer of its own, as a socket read is (a small Buffer.from is a slice of a shared pool).
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(json));
    bytes.write(json);
    const parsed = parseJsonBody(bytes.toString('utf8'), 'application/json', 'openai', bytes);
    const stored = storedRaw(parsed);
    expect(stored.bytes).toBe(bytes);
    expect(storedRaw(stored)).toBe(stored);
    expect(rawJson(stored)).toBe(bytes.toString('utf8'));
    expect(JSON.parse(JSON.stringify({ raw: stored }))).toEqual({ raw: parsed });
    // Past the cap, the note, counted in bytes.
    expect(JSON.parse(storedRaw(parsed, 20).bytes.toString('utf8'))).toMatchObject({ omitted: true });
    // Escapes are made storable on the serialised value, as rawJson does.
    const escapedBytes = Buffer.from('{"a":"x\\u0000y"}', 'utf8');
    const escaped = parseJsonBody(escapedBytes.toString('utf8'), 'application/json', 'openai', escapedBytes);
    expect(storedRaw(escaped).bytes.toString('utf8')).toBe('{"a":"x\\ufffdy"}');
    // Bytes that are not UTF-8 were decoded with U+FFFD in their place: the text is what is stored.
    const invalid = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xff]), Buffer.from('y"}')]);
    const decoded = parseJsonBody(invalid.toString('utf8'), 'application/json', 'openai', invalid);
    expect(storedRaw(decoded).bytes.toString('utf8')).toBe('{"a":"x\uFFFDy"}');
    // Anything not parsed from a body is serialised.
    expect(storedRaw({ a: 1 }).bytes.toString('utf8')).toBe('{"a":1}');
  });
});

describe('targets', () => {
  it('sends an upstream without a credential to the simulator under its prefix', () => {
    expect(resolveTarget(assistantsConfig(), 'openai')).toMatchObject({
      target: 'simulator',
      baseUrl: 'http://127.0.0.1:4010/openai/v1',
    });
    expect(resolveTarget(assistantsConfig(), 'anthropic').baseUrl).toBe('http://127.0.0.1:4010/anthropic');
    expect(resolveTarget(assistantsConfig(), 'appGateway').baseUrl).toBe('http://127.0.0.1:4010/app');
  });

  it('uses the real service with a credential, honouring a base URL override', () => {
    const config = assistantsConfig({
      openai: { apiKey: 'sk-test', baseUrl: undefined },
      gemini: { apiKey: 'g', baseUrl: 'https://proxy.example.com/' },
    });
    expect(resolveTarget(config, 'openai')).toMatchObject({
      target: 'api',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-test',
    });
    expect(resolveTarget(config, 'gemini').baseUrl).toBe('https://proxy.example.com');
  });

  it('ASSISTANTS=simulator forces the simulator; the gateway needs a base URL to be real', () => {
    expect(
      resolveTarget(assistantsConfig({ mode: 'simulator', openai: { apiKey: 'sk', baseUrl: undefined } }), 'openai')
        .target,
    ).toBe('simulator');
    expect(
      resolveTarget(assistantsConfig({ appGateway: { apiKey: 'k', baseUrl: undefined } }), 'appGateway').target,
    ).toBe('simulator');
  });

  it('reports per provider and model where answers come from', () => {
    const a = createAssistants(
      assistantsConfig({ openai: { apiKey: 'sk', baseUrl: undefined } }),
      createLogger('silent'),
    );
    expect(a.source('openai')).toBe('api');
    expect(a.isConnected('openai', 'chatgpt-app')).toBe(false);
    expect(a.source('anthropic')).toBe('simulator');
    expect(a.batchKind('openai')).toBe('batch');
    expect(a.batchKind('openai', 'chatgpt-app-queue')).toBe('queue');
    expect(a.batchKind('perplexity')).toBeNull();
    expect(a.batchKind('google-ai-mode')).toBeNull();
  });
});

describe('batch result lines', () => {
  it('reads OpenAI output and error file lines', () => {
    const [ok, bad, expired] = jsonl('openai-batch-output.jsonl');
    const first = openaiBatchLine('p1', ok, 'completed');
    expect(first.ok && first.parsed.citations.length).toBe(2);
    expect(openaiBatchLine('p2', bad, 'completed')).toMatchObject({
      ok: false,
      error: { kind: 'permanent', status: 400 },
    });
    expect(openaiBatchLine('p3', expired, 'expired')).toMatchObject({
      ok: false,
      error: { kind: 'retryable', reason: 'batch_item' },
    });
    expect(openaiBatchLine('p4', undefined, 'cancelled')).toMatchObject({ ok: false, error: { kind: 'retryable' } });
  });

  it('reads Anthropic batch results', () => {
    const lines = jsonl('anthropic-batch-results.jsonl');
    const [ok, invalid, overloaded, expired] = lines.map((l) => anthropicBatchResult(String(l.custom_id), l.result));
    expect(ok?.ok && ok.parsed.searches).toEqual(['best CRM for small agencies', 'Pipedrive vs Zoho CRM agency']);
    expect(invalid).toMatchObject({ ok: false, error: { kind: 'permanent' } });
    expect(overloaded).toMatchObject({ ok: false, error: { kind: 'retryable' } });
    expect(expired).toMatchObject({ ok: false, error: { kind: 'retryable', reason: 'batch_item' } });
  });

  it('reads Gemini inlined batch responses, mapping gRPC codes', () => {
    const op = fixture('gemini-batch-operation.json') as {
      metadata: { output: { inlinedResponses: { inlinedResponses: unknown[] } } };
    };
    const [ok, exhausted] = op.metadata.output.inlinedResponses.inlinedResponses;
    const first = geminiInlinedResult('p1', ok, 'JOB_STATE_SUCCEEDED');
    expect(first.ok && first.parsed.searches.length).toBe(2);
    expect(geminiInlinedResult('p2', exhausted, 'JOB_STATE_SUCCEEDED')).toMatchObject({
      ok: false,
      error: { kind: 'retryable', reason: 'rate_limited' },
    });
  });
});

describe('storable replies', () => {
  it('turns NUL into U+FFFD in every text field, keeping offsets', async () => {
    const { storableAnswer, storableJson } = await import('../../../src/assistants/storable.ts');
    const reply = storableAnswer({
      text: 'A\u0000cme is [1] great',
      citations: [
        {
          url: 'https://a.com/\u0000',
          title: 'T\u0000',
          domain: 'a.com',
          startIndex: 13,
          endIndex: 18,
          citedText: 'x\u0000',
        },
      ],
      searches: ['best\u0000 crm'],
      sources: [{ url: 'https://b.com', title: '\u0000', domain: 'b.com' }],
      model: 'm',
      usage: null,
    });
    expect(reply.text).toBe('A\uFFFDcme is [1] great');
    expect(reply.text.slice(13, 18)).toBe('great');
    expect(reply.citations[0]).toMatchObject({
      url: 'https://a.com/\uFFFD',
      title: 'T\uFFFD',
      citedText: 'x\uFFFD',
      startIndex: 13,
    });
    expect(reply.searches).toEqual(['best\uFFFD crm']);
    expect(reply.sources[0]?.title).toBe('\uFFFD');
    // In JSON text: a NUL escape goes, an escaped backslash followed by "u0000" stays.
    const json = JSON.stringify({ a: 'x\u0000y', b: '\\u0000', c: '\\\u0000' });
    expect(JSON.parse(storableJson(json))).toEqual({ a: 'x\uFFFDy', b: '\\u0000', c: '\\\uFFFD' });
    expect(JSON.parse(rawJson({ a: '\u0000' }))).toEqual({ a: '\uFFFD' });
  });

  it('turns half a surrogate pair into U+FFFD, in text and in JSON, keeping whole pairs', async () => {
    const { storableAnswer, storableJson } = await import('../../../src/assistants/storable.ts');
    const reply = storableAnswer({
      text: 'A\ud83dcme \ud83d\ude00 [1]',
      citations: [],
      searches: ['x\udc00'],
      sources: [],
      model: 'm',
      usage: null,
    });
    expect(reply.text).toBe('A\uFFFDcme \ud83d\ude00 [1]');
    expect(reply.searches).toEqual(['x\uFFFD']);
    const json = JSON.stringify({ a: 'x\ud800y', b: 'z\udfff', c: '\ud83d\ude00', d: '\\ud800' });
    expect(JSON.parse(storableJson(json))).toEqual({ a: 'x\uFFFDy', b: 'z\uFFFD', c: '\ud83d\ude00', d: '\\ud800' });
    expect(JSON.parse(rawJson({ a: 'lone \udbff' }))).toEqual({ a: 'lone \uFFFD' });
  });
});
