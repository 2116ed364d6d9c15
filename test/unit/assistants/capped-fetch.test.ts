import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedFetch } from '../../../src/assistants/http.ts';

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
    } else res.writeHead(404).end();
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

  it('stops a body of unknown length once it passes the cap', async () => {
    const res = await fetchCapped(`${base}/chunked-big`);
    await expect(res.text()).rejects.toMatchObject({ reason: 'too_large' });
  });

  it('counts a compressed body by what it decompresses to', async () => {
    const res = await fetchCapped(`${base}/gzip-big`);
    await expect(res.text()).rejects.toMatchObject({ reason: 'too_large' });
  });
});
