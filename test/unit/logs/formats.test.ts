import { createReadStream } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeLog } from '../../../src/logs/decode.ts';
import { AddressRanges } from '../../../src/logs/ranges.ts';
import { LogReader, type TrafficEvent } from '../../../src/logs/reader.ts';
import type { LogFormatChoice } from '../../../src/logs/record.ts';

/**
 * Each documented log source, read from a fixture written from the
 * vendor's field list: nginx and Apache combined, Cloudflare Logpush (HTTP
 * requests), Vercel log drains (NDJSON and a JSON batch), Cloud Run, and
 * the plain JSON shape.
 */

const FIXTURES = path.resolve('test/fixtures/logs');

export async function readFixture(name: string, format: LogFormatChoice = 'auto', ranges = new AddressRanges([])) {
  const reader = new LogReader({
    format,
    ranges,
    oldest: Date.UTC(2026, 0, 1),
    newest: Date.UTC(2027, 0, 1),
    windowNote: 'outside the window',
  });
  for await (const chunk of decodeLog(createReadStream(path.join(FIXTURES, name)))) reader.push(chunk);
  reader.end();
  return { reader, events: reader.take() };
}

const brief = (e: TrafficEvent) => `${e.kind} ${e.name} ${e.day} ${e.path} ${e.status}`;

describe('combined logs', () => {
  it('reads nginx combined: agents by User-Agent, referrals by Referer and utm_source, the rest counted and dropped', async () => {
    const { reader, events } = await readFixture('nginx-combined.log');
    expect(events.map(brief)).toEqual([
      'agent GPTBot 2026-11-20 /pricing 200',
      'agent GPTBot 2026-11-20 /features/ai-answers 200',
      'agent GPTBot 2026-11-20 /old-page 404',
      'agent ClaudeBot 2026-11-20 /pricing 200',
      'agent ClaudeBot 2026-11-20 /blog/ 301',
      'referral ChatGPT 2026-11-20 /pricing 200',
      'referral Perplexity 2026-11-20 /compare/zendesk-alternative 200',
      'agent Googlebot 2026-11-20 /features 200',
      'agent Bingbot 2026-11-20 /robots.txt 200',
      'referral ChatGPT 2026-11-20 /integrations/slack 200',
      'agent ChatGPT-User 2026-11-20 /docs/getting-started 200',
      'agent PerplexityBot 2026-11-20 /pricing 500',
    ]);
    // The stylesheet a referred visit loads, a Google visit, a "-" request and an SEO bot: parsed, not kept.
    expect({ lines: reader.lines, events: reader.events, other: reader.other, skipped: reader.skipped }).toEqual({
      lines: 16,
      events: 12,
      other: 4,
      skipped: 0,
    });
    expect([...reader.formats]).toEqual(['combined']);
    expect(events.every((e) => e.verification === 'unverifiable')).toBe(true);
  });

  it('reads Apache combined with escaped quotes and time zones, and every other agent of the table', async () => {
    const { reader, events } = await readFixture('apache-combined.log', 'combined');
    expect(reader.skipped).toBe(0);
    expect(events.map((e) => e.name)).toEqual([
      'CCBot',
      'Claude',
      'Bytespider',
      'meta-externalagent',
      'Amazonbot',
      'DuckAssistBot',
      'MistralAI-User',
      'Applebot',
      'OAI-SearchBot',
      'Claude-SearchBot',
      'Claude-User',
      'Perplexity-User',
      'Googlebot',
      'Google-CloudVertexBot',
      'meta-externalfetcher',
    ]);
    // -0500: 10:00 in New York is 15:00 UTC, the same day.
    expect(events[0]).toMatchObject({ day: '2026-11-21', path: '/customers' });
    expect(events[2]).toMatchObject({ path: '/search', status: 200 });
    expect(events[3]).toMatchObject({ path: '/pricing', status: 200 });
  });
});

describe('JSON logs', () => {
  it('reads Cloudflare Logpush HTTP requests, Unix nanoseconds and RFC 3339 alike', async () => {
    const { reader, events } = await readFixture('cloudflare-logpush.ndjson');
    expect(events.map(brief)).toEqual([
      'agent GPTBot 2026-11-22 /pricing 200',
      'agent ClaudeBot 2026-11-22 /features 404',
      'referral Gemini 2026-11-22 /integrations/slack 200',
    ]);
    expect({ other: reader.other, skipped: reader.skipped, formats: [...reader.formats] }).toEqual({
      other: 1,
      skipped: 0,
      formats: ['json'],
    });
  });

  it('reads Vercel log drains: request entries by their proxy object, build logs are not requests', async () => {
    const ndjson = await readFixture('vercel-drain.ndjson', 'json');
    expect(ndjson.events.map(brief)).toEqual([
      'agent PerplexityBot 2026-11-23 /pricing 200',
      'referral ChatGPT 2026-11-23 /customers 200',
      'agent OAI-SearchBot 2026-11-23 /api/search 500',
    ]);
    expect({ lines: ndjson.reader.lines, other: ndjson.reader.other, skipped: ndjson.reader.skipped }).toEqual({
      lines: 4,
      other: 1,
      skipped: 0,
    });
    // A JSON drain's batch, one array: the same requests, the same identities.
    const batch = await readFixture('vercel-drain-batch.json');
    expect(batch.reader.lines).toBe(1);
    expect(batch.events.map((e) => e.identity)).toEqual(ndjson.events.map((e) => e.identity));
  });

  it('reads Cloud Run request logs and the plain {time, method, path, status, userAgent, ip, referer} shape', async () => {
    const run = await readFixture('cloud-run.ndjson');
    expect(run.events.map(brief)).toEqual(['agent ClaudeBot 2026-11-24 /pricing 200']);
    const plain = await readFixture('plain.ndjson');
    expect(plain.events.map(brief)).toEqual([
      'agent GPTBot 2026-11-23 /pricing 200',
      'referral Copilot 2026-11-23 /features 200',
      'agent Bytespider 2026-11-23 /features 304',
    ]);
  });

  it('marks hits from the agent’s published ranges verified, others spoofed, agents without ranges unverifiable', async () => {
    const ranges = new AddressRanges([
      { agent: 'GPTBot', prefix: '198.51.100.0/25' },
      { agent: 'ClaudeBot', prefix: '2001:db8::/32' },
    ]);
    const { events } = await readFixture('nginx-combined.log', 'combined', ranges);
    const of = (name: string) => events.filter((e) => e.name === name).map((e) => e.verification);
    expect(of('GPTBot')).toEqual(['verified', 'verified', 'verified']);
    expect(of('ClaudeBot')).toEqual(['spoofed', 'spoofed']);
    expect(of('Googlebot')).toEqual(['unverifiable']);
  });
});

describe('the days kept', () => {
  it('skips entries dated before the window or in the future, saying why', async () => {
    const reader = new LogReader({
      format: 'auto',
      ranges: new AddressRanges([]),
      oldest: Date.UTC(2026, 10, 21),
      newest: Date.UTC(2026, 10, 22),
      windowNote: 'dated more than 400 days ago or in the future; not counted',
    });
    const line = (day: number) =>
      `198.51.100.1 - - [${day}/Nov/2026:08:00:00 +0000] "GET /p HTTP/1.1" 200 1 "-" "GPTBot/1.2"\n`;
    reader.push(Buffer.from([line(20), line(21), line(23)].join('')));
    reader.end();
    expect(reader.take().map((e) => e.day)).toEqual(['2026-11-21']);
    expect(reader.errors).toEqual([
      { line: 1, reason: 'dated more than 400 days ago or in the future; not counted' },
      { line: 3, reason: 'dated more than 400 days ago or in the future; not counted' },
    ]);
  });
});
