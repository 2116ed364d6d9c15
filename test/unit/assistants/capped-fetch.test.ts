import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedFetch, requestJson } from '../../../src/assistants/http.ts';

/** The body cap of the fetch the adapters use, against a real HTTP server. */

const CAP = 1000;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const big = 'x'.repeat(5000);
    if (req.url === '/small') res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5' }).end('hello');
    else if (req.url === '/declared-big') res.writeHead(200, { 'content-length': String(big.length) }).end(big);
    else if (req.url === '/chunked-big') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write(big.slice(0, 2500));
      res.end(big.slice(2500));
    } else if (req.url === '/gzip-big') {
      // 5,000 bytes that compress to a few dozen: the declared length says nothing of the body.
      const zipped = gzipSync(big);
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': String(zipped.length) }).end(zipped);
    } else if (req.url === '/gzip-small') {
      const zipped = gzipSync('hello gzip');
      res
        .writeHead(201, { 'content-encoding': 'gzip', 'content-length': String(zipped.length), 'x-seen': 'yes' })
        .end(zipped);
    } else if (req.url === '/echo') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            method: req.method,
            contentType: req.headers['content-type'],
            key: req.headers['x-key'],
            body: Buffer.concat(chunks).toString(),
          }),
        ),
      );
    } else if (req.url === '/redirect') res.writeHead(302, { location: '/small' }).end();
    else if (req.url === '/json-redirect') res.writeHead(307, { location: '/echo' }).end();
    else if (req.url === '/limited')
      res
        .writeHead(429, { 'retry-after': '2', 'content-type': 'application/json' })
        .end('{"error":{"message":"slow down"}}');
    else if (req.url === '/hang') res.writeHead(200, { 'content-type': 'text/plain' });
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('cappedFetch', () => {
  const fetchCapped = cappedFetch('openai', CAP);

  it('passes a body within the cap untouched', async () => {
    const res = await fetchCapped(`${base}/small`);
    expect(await res.text()).toBe('hello');
  });

  it('refuses a declared length over the cap before reading it', async () => {
    await expect(fetchCapped(`${base}/declared-big`)).rejects.toMatchObject({ reason: 'too_large' });
  });

  // The body is read before the response is handed back, so the cap may refuse it at either step.
  const readText = async (url: string) => (await fetchCapped(url)).text();

  it('stops a body of unknown length once it passes the cap', async () => {
    await expect(readText(`${base}/chunked-big`)).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('counts a compressed body by what it decompresses to', async () => {
    await expect(readText(`${base}/gzip-big`)).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('decodes a compressed body within the cap, keeping status and headers', async () => {
    const res = await fetchCapped(`${base}/gzip-small`);
    expect(res.status).toBe(201);
    expect(res.headers.get('x-seen')).toBe('yes');
    expect(await res.text()).toBe('hello gzip');
  });

  it('sends the method, headers and a string body', async () => {
    const res = await fetchCapped(`${base}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-key': 'k1' },
      body: '{"a":1}',
    });
    expect(await res.json()).toEqual({ method: 'POST', contentType: 'application/json', key: 'k1', body: '{"a":1}' });
  });

  it('sends a form body (batch file uploads) through global fetch', async () => {
    const form = new FormData();
    form.append('purpose', 'batch');
    const res = await fetchCapped(`${base}/echo`, { method: 'POST', body: form });
    const echoed = (await res.json()) as { contentType: string; body: string };
    expect(echoed.contentType).toMatch(/^multipart\/form-data/);
    expect(echoed.body).toContain('batch');
  });

  it('follows a redirect as fetch does', async () => {
    const res = await fetchCapped(`${base}/redirect`);
    expect(await res.text()).toBe('hello');
  });

  it('rejects with the abort reason when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = fetchCapped(`${base}/hang`, { signal: controller.signal });
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('rejects a refused connection as fetch does: TypeError with the socket code in its cause', async () => {
    const err = (await fetchCapped('http://127.0.0.1:1/').catch((e: unknown) => e)) as TypeError & {
      cause: { code: string };
    };
    expect(err).toBeInstanceOf(TypeError);
    expect(err.cause.code).toBe('ECONNREFUSED');
  });
});

describe('requestJson', () => {
  const signal = AbortSignal.timeout(5000);

  it('posts JSON and parses the JSON answer', async () => {
    const echoed = await requestJson(
      { method: 'POST', url: `${base}/echo`, headers: { 'X-Key': 'k2' }, body: { a: 1 }, signal },
      'perplexity',
    );
    expect(echoed).toEqual({ method: 'POST', contentType: 'application/json', key: 'k2', body: '{"a":1}' });
  });

  it('turns a status into a classified error with the Retry-After and the provider message', async () => {
    await expect(requestJson({ method: 'GET', url: `${base}/limited`, signal }, 'perplexity')).rejects.toMatchObject({
      status: 429,
      retryAfterMs: 2000,
      message: 'HTTP 429: slow down',
    });
  });

  it('follows a redirect through fetch, body and method kept (307)', async () => {
    const echoed = await requestJson(
      { method: 'POST', url: `${base}/json-redirect`, body: { b: 2 }, signal },
      'perplexity',
    );
    expect(echoed).toMatchObject({ method: 'POST', body: '{"b":2}' });
  });

  it('calls a body that is not JSON a permanent malformed response', async () => {
    await expect(requestJson({ method: 'GET', url: `${base}/small`, signal }, 'perplexity')).rejects.toMatchObject({
      reason: 'malformed_response',
    });
  });
});
