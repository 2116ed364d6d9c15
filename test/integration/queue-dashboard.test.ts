import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { JOBS } from '../../jobs/index.ts';
import { queueNamesOf } from '../../src/queue/job-row.ts';
import { allRoutes } from '../../src/http/routes/index.ts';
import { createHttpServer, type HttpServer } from '../../src/http/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { parsePrometheusText } from '../helpers/prometheus-text.ts';

/**
 * The queue dashboard (bull-board at /admin/queues) over HTTP: absent
 * without OPERATOR_TOKEN, closed without the token (a workspace key is not
 * it), every queue of the catalog listed, a failed job shown, retried and
 * removed; changes refused from another origin, and the actions that would
 * write payloads or destroy queues refused outright.
 */

const TOKEN = 'operator-token-for-tests-0123456789';
let app: TestApp;
let ws: Org;
let bare: HttpServer;
let bareUrl: string;

const bearer = { authorization: `Bearer ${TOKEN}` };

async function get(path: string, headers: Record<string, string> = bearer, base = app.url) {
  return fetch(`${base}${path}`, { headers, redirect: 'manual' });
}

async function put(path: string, headers: Record<string, string> = {}) {
  return fetch(`${app.url}${path}`, { method: 'PUT', headers: { ...bearer, ...headers } });
}

/** A rewrite job whose payload its schema refuses: the worker fails it on its only attempt. */
async function failedJob(id: string) {
  await app.ctx.jobs.queue('rewrite').add('rewrite', { siteId: -1 }, { jobId: id, attempts: 1 });
  for (const deadline = Date.now() + 15_000; ;) {
    const job = await app.ctx.jobs.queue('rewrite').getJob(id);
    if ((await job?.getState()) === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${id} never failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  app = await startTestApp({ env: { OPERATOR_TOKEN: TOKEN }, workers: { queues: ['rewrite'] } });
  ws = await seedOrg(app.ctx);
  // The same deployment without OPERATOR_TOKEN.
  bare = createHttpServer({ ...app.ctx, config: loadConfig({ ...app.env, OPERATOR_TOKEN: '' }) }, allRoutes);
  bareUrl = await bare.listen(0, '127.0.0.1');
});
afterAll(async () => {
  await bare?.close();
  await app?.close();
});

describe('the queue dashboard', () => {
  it('does not exist without OPERATOR_TOKEN', async () => {
    for (const path of ['/admin/queues', '/admin/queues/', '/admin/queues/api/queues'])
      expect((await get(path, bearer, bareUrl)).status, path).toBe(404);
  });

  it('answers 401 without the operator token, with a wrong one, and with a workspace key', async () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token-wrong' },
      { authorization: `Bearer ${ws.keys.admin}` },
      { authorization: `Basic ${Buffer.from(`ops:${ws.keys.admin}`).toString('base64')}` },
      { authorization: `Basic ${Buffer.from('ops').toString('base64')}` },
      { authorization: TOKEN },
    ];
    for (const headers of refused) {
      for (const path of ['/admin/queues/', '/admin/queues/api/queues', '/admin/queues/static/images/logo.svg']) {
        const res = await get(path, headers);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        expect(await res.text()).not.toContain(TOKEN);
      }
    }
  });

  it('serves the page and lists every queue of the catalog with the token, as Bearer or Basic', async () => {
    const redirect = await get('/admin/queues');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/admin/queues/');
    for (const headers of [bearer, { authorization: `Basic ${Buffer.from(`ops:${TOKEN}`).toString('base64')}` }]) {
      const page = await get('/admin/queues/', headers);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const html = await page.text();
      expect(html).toContain('<base href="/admin/queues/" />');
      expect(html).toContain('Sightline queues');
      expect(html).not.toContain('<%');
      expect(html).not.toContain('fonts.googleapis.com');
    }
    const api = await get('/admin/queues/api/queues');
    expect(api.status).toBe(200);
    const body = (await api.json()) as { queues: { name: string; counts: Record<string, number> }[] };
    expect(body.queues.map((q) => q.name).sort()).toEqual([...queueNamesOf(JOBS)].sort());
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(await (await get('/admin/queues/')).text())?.[1];
    const js = await get(`/admin/queues/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toContain('javascript');
  });

  it('shows a failed job with its reason, retries it and removes it', async () => {
    const job = await failedJob('dash-failed-1');
    const list = (await (
      await get('/admin/queues/api/queues?activeQueue=rewrite&status=failed&page=1&jobsPerPage=10')
    ).json()) as {
      queues: { name: string; jobs: { id: string; failedReason: string }[] }[];
    };
    const shown = list.queues.find((q) => q.name === 'rewrite')?.jobs.find((j) => j.id === 'dash-failed-1');
    expect(shown?.failedReason).toContain('siteId');
    const firstFailure = job?.finishedOn;

    const retry = await put('/admin/queues/api/queues/rewrite/dash-failed-1/retry');
    expect(retry.status).toBe(204);
    // Run again by the worker (and failed again: its payload is still refused).
    for (const deadline = Date.now() + 15_000; ;) {
      const again = await app.ctx.jobs.queue('rewrite').getJob('dash-failed-1');
      if ((await again?.getState()) === 'failed' && again?.finishedOn !== firstFailure) break;
      if (Date.now() > deadline) throw new Error('the retried job did not run again');
      await new Promise((r) => setTimeout(r, 100));
    }

    const remove = await put('/admin/queues/api/queues/rewrite/dash-failed-1/clean');
    expect(remove.status).toBe(204);
    expect(await app.ctx.jobs.queue('rewrite').getJob('dash-failed-1')).toBeUndefined();
  });

  it('refuses changes from another origin', async () => {
    await failedJob('dash-failed-2');
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { origin: 'null' },
    ];
    for (const headers of foreign) {
      const res = await put('/admin/queues/api/queues/rewrite/dash-failed-2/clean', headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
    }
    expect(await (await app.ctx.jobs.queue('rewrite').getJob('dash-failed-2'))?.getState()).toBe('failed');
    const own = new URL(app.url).host;
    expect(
      (
        await put('/admin/queues/api/queues/rewrite/dash-failed-2/clean', {
          origin: `http://${own}`,
          'sec-fetch-site': 'same-origin',
        })
      ).status,
    ).toBe(204);
  });

  it('refuses to add jobs, edit their data, or empty and obliterate queues', async () => {
    await failedJob('dash-failed-3');
    const attempts = [
      fetch(`${app.url}/admin/queues/api/queues/rewrite/add`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'rewrite', data: { siteId: 1 } }),
      }),
      fetch(`${app.url}/admin/queues/api/queues/rewrite/dash-failed-3/update-data`, {
        method: 'PATCH',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ jobData: { siteId: 1 } }),
      }),
      put('/admin/queues/api/queues/rewrite/empty'),
      fetch(`${app.url}/admin/queues/api/queues/rewrite/obliterate`, {
        method: 'PUT',
        headers: { ...bearer, 'content-type': 'application/json' },
        body: JSON.stringify({ force: true }),
      }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.status).toBe(403);
    const job = await app.ctx.jobs.queue('rewrite').getJob('dash-failed-3');
    expect(job?.data).toEqual({ siteId: -1 });
    expect(await app.ctx.jobs.queue('rewrite').getJobCounts('failed')).toMatchObject({ failed: expect.any(Number) });
    expect((await app.ctx.jobs.queue('rewrite').getJobCounts('failed')).failed).toBeGreaterThanOrEqual(1);
  });

  it('refuses a body over 64 KB', async () => {
    const res = await fetch(`${app.url}/admin/queues/api/queues/rewrite/concurrency`, {
      method: 'PUT',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ concurrency: 1, padding: 'x'.repeat(100_000) }),
    });
    expect(res.status).toBe(413);
  });

  it("serves only the UI's own files", async () => {
    for (const path of [
      '/admin/queues/static/..%2f..%2f..%2fpackage.json',
      '/admin/queues/static/%2e%2e/%2e%2e/package.json',
      '/admin/queues/static/nothing.js',
      '/admin/queues/nowhere',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
  });

  it('is one route in the access log and the request metrics', async () => {
    await get('/admin/queues/api/queues');
    const metrics = parsePrometheusText(await (await fetch(`${app.url}/metrics`)).text());
    expect(metrics.value('http_requests_total', { route: '/admin/queues', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(
      metrics.samples.filter((s) => s.name === 'http_requests_total' && s.labels.route?.startsWith('/admin/queues/')),
    ).toEqual([]);
  });
});
