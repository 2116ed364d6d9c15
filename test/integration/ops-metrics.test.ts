import { readFileSync } from 'node:fs';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { METRICS } from '../../src/telemetry/metric-catalog.ts';
import { watchWorker } from '../../src/telemetry/job-metrics.ts';
import { JOBS } from '../../jobs/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { metricNamesIn, parsePrometheusText, type Scrape } from '../helpers/prometheus-text.ts';
import { addActivePrompts, moneyFacts, script, waitForScan } from '../helpers/scans.ts';

/**
 * The operator's metrics in the API's /metrics: queues and their workers,
 * job runs, provider calls (429s among them), scans and money, read from
 * Redis and Postgres at most every 5 s, whatever the number of scrapes;
 * and the alert rules and the Grafana dashboard in ops/ query only metrics
 * that /metrics exports.
 */

let app: TestApp;
let ws: Org;

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${app.url}/metrics`);
  expect(res.status).toBe(200);
  return parsePrometheusText(await res.text());
}

/** Scrapes until `check` passes: worker counts reach Redis within a second, and the API re-reads them every 5 s. */
async function scrapeUntil(check: (s: Scrape) => boolean, timeout = 20_000): Promise<Scrape> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const s = await scrape();
    if (check(s)) return s;
    if (Date.now() > deadline)
      throw new Error(
        `/metrics never showed what was expected:\n${s.samples
          .filter((x) => x.name.startsWith('sightline_'))
          .map((x) => `${x.name} ${JSON.stringify(x.labels)} ${x.value}`)
          .join('\n')}`,
      );
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function newSite(name: string, prompts: number): Promise<number> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: `${name.toLowerCase()}.com` },
  });
  await addActivePrompts(
    app.ctx,
    res.body.project.id,
    Array.from({ length: prompts }, (_, i) => `Which ${name} alternative is best for team ${i}?`),
  );
  return res.body.project.id;
}

beforeAll(async () => {
  // No reconciler run during the file, so the scan this file marks running by hand stays so.
  app = await startTestApp({ workers: true, simulator: true, env: { SCAN_RECONCILE_MS: '3600000' } });
  ws = await seedOrg(app.ctx, { balanceUsd: 50 });
});
afterAll(() => app?.close());

describe('/metrics for operators', () => {
  it('shows queues and their workers, job runs, provider calls and the money a scan settled', async () => {
    const siteId = await newSite('Metered', 3);
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['openai', 'perplexity'] },
    });
    await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    const money = await moneyFacts(app.ctx, ws.orgId, start.body.scan.id);

    const s = await scrapeUntil(
      (x) =>
        (x.value('sightline_job_duration_seconds_count', { queue: 'scan', job_name: 'scan', outcome: 'completed' }) ??
          0) >= 1 &&
        (x.value('sightline_provider_calls_total', { upstream: 'perplexity', outcome: 'ok' }) ?? 0) >= 3 &&
        x.value('sightline_money_settled_micros_total') === money.charged,
    );
    expect(s.value('sightline_provider_calls_total', { upstream: 'openai', outcome: 'ok' })).toBeGreaterThanOrEqual(3);
    const waits = s.value('sightline_provider_gate_wait_seconds_count', { upstream: 'openai' }) ?? 0;
    expect(waits).toBeGreaterThanOrEqual(3);
    expect(s.value('sightline_provider_gate_wait_seconds_bucket', { upstream: 'openai', le: '+Inf' })).toBe(waits);
    expect(
      s.value('sightline_job_duration_seconds_bucket', {
        queue: 'scan',
        job_name: 'scan',
        outcome: 'completed',
        le: '+Inf',
      }),
    ).toBeGreaterThanOrEqual(1);
    // Every queue of the catalog, with this process's workers connected to it.
    for (const queue of ['scan', 'reanalysis', 'schedule', 'rewrite', 'site-fetch']) {
      expect(s.value('sightline_queue_workers', { queue }), queue).toBeGreaterThanOrEqual(1);
      expect(s.value('sightline_queue_jobs', { queue, state: 'waiting' }), queue).toBeGreaterThanOrEqual(0);
    }
    expect(s.value('sightline_scans', { status: 'running' })).toBe(0);
    expect(s.value('sightline_scan_oldest_running_seconds')).toBe(0);
    expect(s.value('sightline_money_reserved_micros')).toBe(0);
    for (const source of ['queues', 'workers', 'database', 'gate', 'shared'])
      expect(s.value('sightline_operator_metrics_up', { source }), source).toBe(1);
    expect(s.types.get('sightline_job_duration_seconds')).toBe('histogram');
    expect(s.types.get('sightline_provider_calls_total')).toBe('counter');
  });

  it('counts calls a provider refused with 429, per upstream', async () => {
    const siteId = await newSite('Throttled', 2);
    await script(app, {
      provider: 'perplexity',
      match: 'Throttled alternative',
      fail: { status: 429, times: 2, retryAfter: 0 },
    });
    const before =
      (await scrape()).value('sightline_provider_calls_total', { upstream: 'perplexity', outcome: 'rate_limited' }) ??
      0;
    const start = await app.request('POST', `/projects/${siteId}/scans`, {
      key: ws.keys.admin,
      body: { providers: ['perplexity'] },
    });
    await waitForScan(app, ws.keys.viewer, siteId, start.body.scan.id);
    const s = await scrapeUntil(
      (x) =>
        (x.value('sightline_provider_calls_total', { upstream: 'perplexity', outcome: 'rate_limited' }) ?? 0) >=
        before + 2,
    );
    expect(s.value('sightline_provider_calls_total', { upstream: 'openai', outcome: 'rate_limited' }) ?? 0).toBe(0);
  });

  it('shows scans not yet ended, the age of the oldest running one, and money held', async () => {
    const siteId = await newSite('Stuck', 1);
    const startedAt = new Date(Date.now() - 15 * 60_000);
    const scan = await app.ctx.db
      .insertInto('scans')
      .values({ orgId: ws.orgId, siteId, status: 'running', plan: JSON.stringify({}), startedAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    await app.ctx.db.updateTable('orgs').set({ reservedMicros: 1234 }).where('id', '=', ws.orgId).execute();
    try {
      const s = await scrapeUntil((x) => x.value('sightline_scans', { status: 'running' }) === 1);
      expect(s.value('sightline_scan_oldest_running_seconds')).toBeGreaterThanOrEqual(15 * 60);
      expect(s.value('sightline_scan_oldest_running_seconds')).toBeLessThan(16 * 60);
      expect(s.value('sightline_money_reserved_micros')).toBe(1234);
    } finally {
      await app.ctx.db.updateTable('orgs').set({ reservedMicros: 0 }).where('id', '=', ws.orgId).execute();
      await app.ctx.db
        .updateTable('scans')
        .set({ status: 'done', finishedAt: new Date() })
        .where('id', '=', scan.id)
        .execute();
    }
  });

  it('counts jobs that failed their last attempt', async () => {
    // A payload the job's schema refuses: the worker fails it, and with one attempt it is exhausted.
    await app.ctx.jobs.queue('rewrite').add('rewrite', { siteId: -1 }, { jobId: 'bad-rewrite', attempts: 1 });
    // A job under a name the catalog does not have (added to Redis by hand) is labelled `unknown`: job names add no series.
    await app.ctx.jobs.queue('rewrite').add(`made-up-${'x'.repeat(50)}`, {}, { jobId: 'made-up', attempts: 1 });
    const s = await scrapeUntil(
      (x) =>
        (x.value('sightline_jobs_exhausted_total', { queue: 'rewrite', job_name: 'rewrite' }) ?? 0) >= 1 &&
        (x.value('sightline_jobs_exhausted_total', { queue: 'rewrite', job_name: 'unknown' }) ?? 0) >= 1,
    );
    expect(s.samples.filter((x) => x.labels.job_name?.startsWith('made-up'))).toEqual([]);
    expect(
      s.value('sightline_job_duration_seconds_count', { queue: 'rewrite', job_name: 'rewrite', outcome: 'failed' }),
    ).toBeGreaterThanOrEqual(1);
    expect(s.value('sightline_queue_jobs', { queue: 'rewrite', state: 'failed' })).toBeGreaterThanOrEqual(1);
  });

  it('counts jobs a worker finds stalled', async () => {
    // A job taken by a worker that then never renews its lock (its process froze); a watched worker of the same
    // queue, started after, finds it stalled. A queue of its own, so that the app's workers take no part.
    const queue = `stall-${Date.now()}`;
    const connection = new Redis(app.config.redisUrl, { maxRetriesPerRequest: null });
    const frozen = new Worker(queue, null, {
      connection,
      prefix: app.config.redisPrefix,
      lockDuration: 1000,
      autorun: false,
    });
    let watched: Worker | null = null;
    try {
      const producer = new Queue(queue, { connection, prefix: app.config.redisPrefix });
      await producer.add('rewrite', { siteId: 1 }, { jobId: 'frozen' });
      await producer.close();
      expect(await frozen.getNextJob('frozen-token')).toBeTruthy();
      watched = new Worker(queue, async () => undefined, {
        connection,
        prefix: app.config.redisPrefix,
        stalledInterval: 500,
        lockDuration: 1000,
      });
      watchWorker(watched, queue, Object.keys(JOBS), app.ctx.metrics);
      await scrapeUntil((x) => (x.value('sightline_jobs_stalled_total', { queue }) ?? 0) >= 1);
    } finally {
      await watched?.close();
      await frozen.close(true);
      connection.disconnect();
    }
  });

  it('reads Redis and Postgres once for any number of scrapes within 5 s', async () => {
    await new Promise((r) => setTimeout(r, 5_100));
    const reads = vi.spyOn(app.ctx.redis, 'hgetall');
    try {
      await Promise.all(Array.from({ length: 25 }, () => scrape()));
      for (let i = 0; i < 25; i++) await scrape();
      expect(reads.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      reads.mockRestore();
    }
  });

  it('exports every metric the alert rules and the Grafana dashboard query', async () => {
    const exported = (await scrape()).names();
    for (const spec of Object.values(METRICS)) expect(exported.has(spec.name), spec.name).toBe(true);
    const rules = readFileSync('ops/prometheus/sightline-alerts.yml', 'utf8');
    const dashboard = JSON.parse(readFileSync('ops/grafana/sightline-dashboard.json', 'utf8')) as {
      panels: { title: string; targets?: { expr: string }[] }[];
    };
    const queries = [
      ...[...rules.matchAll(/expr: (>\n(?:\s{10}.*\n)+|.*)/g)].map((m) => ({
        where: 'alert rules',
        expr: m[1] as string,
      })),
      ...dashboard.panels.flatMap((p) =>
        (p.targets ?? []).map((t) => ({ where: `dashboard panel "${p.title}"`, expr: t.expr })),
      ),
    ];
    expect(queries.length).toBeGreaterThan(20);
    for (const { where, expr } of queries) {
      const names = metricNamesIn(expr);
      expect(names.length, `${where}: ${expr}`).toBeGreaterThan(0);
      for (const name of names)
        expect(exported.has(name), `${where} reads ${name}, which /metrics does not export`).toBe(true);
    }
  });
});
