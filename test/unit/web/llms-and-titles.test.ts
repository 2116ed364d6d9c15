import { describe, expect, it } from 'vitest';
import { readTitle } from '../../../src/web/html-title.ts';
import { readLlmsTxt } from '../../../src/web/llms-txt.ts';

/** llms.txt validity (llmstxt.org) and page titles read from HTML as it streams. */

async function* chunks(text: string, size = 5): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('llms.txt', () => {
  it('is present with a first "# Name" heading, counting its links', () => {
    expect(readLlmsTxt('\uFEFF\n# Acme\n\n> Tools.\n\n## Docs\n- [A](https://acme.com/a): a\n- [B](/b "B")\n', 'text/markdown')).toEqual({
      state: 'present',
      title: 'Acme',
      links: 2,
      note: null,
    });
    expect(readLlmsTxt('# Acme\n', null)).toMatchObject({ state: 'present', note: 'llms.txt lists no links' });
  });

  it('is invalid as HTML, empty, binary or without the heading', () => {
    expect(readLlmsTxt('<!DOCTYPE html><html></html>', 'text/html; charset=utf-8').state).toBe('invalid');
    expect(readLlmsTxt('# Acme', 'text/html').note).toMatch(/HTML page/);
    expect(readLlmsTxt('<html><body>404</body></html>', 'text/plain').state).toBe('invalid');
    expect(readLlmsTxt('  \n\n', 'text/plain').note).toMatch(/empty/);
    expect(readLlmsTxt('# A\u0000B', 'text/plain').note).toMatch(/not text/);
    expect(readLlmsTxt('## Docs\n- [A](https://acme.com)', 'text/plain').note).toMatch(/# Name/);
  });
});

describe('page titles', () => {
  it('reads the title, decoding entities and collapsing space', async () => {
    expect(await readTitle(chunks('<!doctype html><HTML><head><TITLE>\n  Ben &amp; Jerry&#39;s   shop </title></head><body>x</body></html>'))).toBe("Ben & Jerry's shop");
  });

  it('falls back to og:title, and answers null without either', async () => {
    expect(await readTitle(chunks('<html><head><meta property="og:title" content="From OG"></head><body></body></html>'))).toBe('From OG');
    expect(await readTitle(chunks('<html><head></head><body><h1>No title</h1></body></html>'))).toBeNull();
    expect(await readTitle(chunks('<html><head><title>   </title></head></html>'))).toBeNull();
  });

  it('stops reading once the head is over', async () => {
    let served = 0;
    async function* endless() {
      yield Buffer.from('<html><head><title>Early</title></head><body>');
      for (;;) {
        served++;
        yield Buffer.from('<p>more</p>'.repeat(100));
      }
    }
    expect(await readTitle(endless())).toBe('Early');
    expect(served).toBeLessThan(2);
  });
});
