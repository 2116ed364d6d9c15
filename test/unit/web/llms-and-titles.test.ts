import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { headBytes, readTitle, TITLE_MAX_DEPTH } from '../../../src/web/html-title.ts';
import { countLinks, LLMS_TXT_MAX_LINKS, readLlmsTxt } from '../../../src/web/llms-txt.ts';

/** llms.txt validity (llmstxt.org) and page titles read from HTML as it streams. */

async function* chunks(text: string, size = 5): AsyncGenerator<Buffer> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('llms.txt', () => {
  it('is present with a first "# Name" heading, counting its links', () => {
    expect(
      readLlmsTxt(
        '\uFEFF\n# Acme\n\n> Tools.\n\n## Docs\n- [A](https://acme.com/a): a\n- [B](/b "B")\n',
        'text/markdown',
      ),
    ).toEqual({
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

describe('llms.txt links', () => {
  /** The pattern links were counted with: right, but it rescans a line from every `[`. */
  const LINK = /\[[^\]\n]*\]\([^)\s]+(?:\s+"[^"]*")?\)/g;

  it('counts exactly what the link pattern matches', () => {
    const piece = fc.constantFrom('[', ']', '(', ')', '"', ' ', '\n', '\t', '\u00a0', 'a', '/', '[a](b)', '[a](b "t")');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join('');
        expect(countLinks(text).links).toBe(text.match(LINK)?.length ?? 0);
      }),
      { numRuns: 20_000 },
    );
  });

  it('counts 1 MiB of brackets, open links and open titles in time linear in the file', () => {
    // The pattern took 2.9 s on 80 KB of `[` and about 570 s on 1 MiB.
    const MiB = 1 << 20;
    for (const body of [
      '['.repeat(MiB),
      '[](x'.repeat(MiB / 4),
      '[](x "'.repeat(MiB / 6),
      `[](x${' '.repeat(MiB)}`,
      '[a]'.repeat(MiB / 3),
    ]) {
      const started = performance.now();
      expect(readLlmsTxt(`# Acme\n${body}`, 'text/plain')).toMatchObject({ state: 'present', links: 0 });
      expect(performance.now() - started, body.slice(0, 8)).toBeLessThan(2000);
    }
  });

  it('counts at most LLMS_TXT_MAX_LINKS links and says so', () => {
    const many = `# Acme\n${'- [A](https://acme.com/a)\n'.repeat(LLMS_TXT_MAX_LINKS + 1)}`;
    expect(readLlmsTxt(many, null)).toEqual({
      state: 'present',
      title: 'Acme',
      links: 10_000,
      note: 'llms.txt lists more than 10,000 links; only the first 10,000 were counted',
    });
    const exactly = `# Acme\n${'- [A](https://acme.com/a)\n'.repeat(LLMS_TXT_MAX_LINKS)}`;
    expect(readLlmsTxt(exactly, null)).toMatchObject({ links: 10_000, note: null });
  });
});

describe('page titles', () => {
  it('reads the title, decoding entities and collapsing space', async () => {
    expect(
      await readTitle(
        chunks(
          '<!doctype html><HTML><head><TITLE>\n  Ben &amp; Jerry&#39;s   shop </title></head><body>x</body></html>',
        ),
      ),
    ).toBe("Ben & Jerry's shop");
  });

  it('falls back to og:title, and answers null without either', async () => {
    expect(
      await readTitle(chunks('<html><head><meta property="og:title" content="From OG"></head><body></body></html>')),
    ).toBe('From OG');
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

  it('stops reading past TITLE_MAX_DEPTH nested elements, keeping what it found', async () => {
    // htmlparser2's open-element list costs the square of the nesting: 1 MB of <div> took 11 s.
    const MB = 1 << 20;
    for (const html of [
      `<html><head>${'<div>'.repeat((2 * MB) / 5)}`,
      `<html><head>${'<div>'.repeat(TITLE_MAX_DEPTH - 3)}${'</b>'.repeat(MB / 2)}`,
      `<html><head><form>${'<a>'.repeat(TITLE_MAX_DEPTH - 4)}${'<form>'.repeat(MB / 3)}`,
    ]) {
      const started = performance.now();
      expect(await readTitle(chunks(html, 64 * 1024))).toBeNull();
      expect(performance.now() - started).toBeLessThan(2000);
    }
    expect(await readTitle(chunks(`<html><head><title>Kept</title>${'<div>'.repeat(MB / 5)}`, 64 * 1024))).toBe('Kept');
  });

  it('stops reading at an element with hundreds of thousands of attributes, and keeps a long og:title short', async () => {
    const attributes = Array.from({ length: 200_000 }, (_, i) => `a${i}=x`).join(' ');
    let started = performance.now();
    expect(await readTitle(chunks(`<html><head><title>T</title><meta ${attributes}></head>`, 64 * 1024))).toBe('T');
    expect(performance.now() - started).toBeLessThan(2000);
    started = performance.now();
    const og = await readTitle(
      chunks(`<html><head><meta property="og:title" content="${'word '.repeat(400_000)}"></head><body>`, 64 * 1024),
    );
    expect(og).toHaveLength(300);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('takes a page’s bytes up to the end of its head, the tag cut across pieces too', async () => {
    let served = 0;
    async function* page(head: string, ends: string) {
      yield Buffer.from(head);
      yield Buffer.from(ends);
      for (;;) {
        served++;
        yield Buffer.from('<p>more</p>'.repeat(100));
      }
    }
    for (const [head, ends] of [
      ['<html><head><title>A</title></he', 'ad>'],
      ['<html><head><title>A</title><BODY', ' class="x">'],
      ['<html><head><title>A</title><', 'body>'],
    ]) {
      served = 0;
      const bytes = await headBytes(page(head as string, ends as string));
      expect(Buffer.from(bytes).toString()).toBe(`${head}${ends}`);
      expect(served, `${head}|${ends}`).toBe(0);
    }
    // A page whose head never ends is read to its end (the fetch caps its size).
    expect(Buffer.from(await headBytes(chunks('<html><head><title>B</title><bodyguard>'))).toString()).toBe(
      '<html><head><title>B</title><bodyguard>',
    );
  });
});
