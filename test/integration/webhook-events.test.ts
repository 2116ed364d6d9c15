import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultModel } from '../../src/assistants/catalog.ts';
import { fixedClock } from '../../src/clock.ts';
import { importAnswers } from '../../src/domain/scans/answer-import.ts';
import { requestCrawlerCheck } from '../../src/domain/crawlers/checks.ts';
import { runCrawlerCheck } from '../../src/domain/crawlers/run-check.ts';
import { addPeriods, periodStart } from '../../src/domain/common/periods.ts';
import { failScan } from '../../src/domain/scans/run.ts';
import { EVENT_BODIES, type EventType } from '../../src/domain/webhooks/event-types.ts';
import { comparePeriod, runWebhookPeriodTick } from '../../src/domain/webhooks/period-tick.ts';
import { topUp } from '../../src/domain/orgs/billing.ts';
import { startFixtureSite, type FixtureSite } from '../../src/fixture-site/server.ts';
import { usdToMicros } from '../../src/money.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { seedOrg, type Org } from '../helpers/fixtures.ts';
import { startReceiver, type Receiver, type Received } from '../helpers/receiver.ts';
import { addActivePrompts, script, waitForScan } from '../helpers/scans.ts';

/**
 * Events fired where the facts change, once each, and change events only
 * when the change is real by the report's own tests: scans through the
 * simulator and a real worker, imported answers for periods, a local site
 * for crawler checks, money at a scan's end. Each webhook's receiver path
 * collects what it got; every body is verified with the standardwebhooks
 * package and checked against its event schema.
 */

let app: TestApp;
let receiver: Receiver;
let site: FixtureSite;

beforeAll(async () => {
  receiver = await startReceiver();
  site = await startFixtureSite({ routes: { '/robots.txt': 'User-agent: *\nDisallow:\n' } });
  app = await startTestApp({
    simulator: true,
    workers: { queues: ['scan', 'webhook'] },
    env: {
      SITE_FETCH_MAP: `hooks.test=${receiver.url},crawl-shop.com=${site.url}`,
      WEBHOOK_RETRY_DELAYS_MS: '100,100,100',
    },
  });
});
afterAll(async () => {
  await app?.close();
  await receiver?.close();
  await site?.close();
});

interface Hook {
  id: number;
  secret: string;
  path: string;
}

async function hook(ws: Org, path: string, body: Record<string, unknown>): Promise<Hook> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/webhooks`, {
    key: ws.keys.admin,
    body: { url: `https://hooks.test${path}`, ...body },
  });
  if (res.status !== 200) throw new Error(`webhook not created: ${res.text}`);
  return { id: res.body.webhook.id, secret: res.body.webhook.secret, path };
}

/** What a standard webhook received: each body verified and parsed with its event's schema. */
function events(
  h: Hook,
  type?: EventType,
): { type: EventType; timestamp: string; data: Record<string, unknown>; id: string }[] {
  return receiver
    .to(h.path)
    .map((r: Received) => {
      const body = new Webhook(h.secret).verify(r.body, {
        'webhook-id': r.headers['webhook-id'] as string,
        'webhook-timestamp': r.headers['webhook-timestamp'] as string,
        'webhook-signature': r.headers['webhook-signature'] as string,
      }) as { type: EventType };
      const parsed = EVENT_BODIES[body.type].parse(body) as {
        type: EventType;
        timestamp: string;
        data: Record<string, unknown>;
      };
      return { ...parsed, id: r.headers['webhook-id'] as string };
    })
    .filter((e) => !type || e.type === type);
}

const settle = () => new Promise((r) => setTimeout(r, 1_000));

async function newSite(ws: Org, name: string, domain: string, competitors: { name: string; domain: string }[] = []) {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: { name, url: domain, competitors },
  });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.project as { id: number; competitors: { id: number; name: string }[] };
}

/** Scripts the simulator: prompt `q<n>` answers naming whom `who(n)` says. */
async function scriptAnswers(tag: string, count: number, who: (n: number) => string) {
  for (let n = 0; n < count; n++)
    await script(app, {
      provider: null,
      match: `${tag}${String(n).padStart(2, '0')} `,
      text: `${who(n)} is the one most people pick for this.`,
    });
}

async function scan(ws: Org, siteId: number, body: Record<string, unknown>) {
  const res = await app.request('POST', `/projects/${siteId}/scans`, { key: ws.keys.admin, body });
  if (res.status !== 200) throw new Error(`scan not started: ${res.text}`);
  const done = await waitForScan(app, ws.keys.viewer, siteId, res.body.scan.id, 30_000);
  return { id: res.body.scan.id as number, doneAt: Date.now(), scan: done.scan };
}

describe('scan on scan', () => {
  let ws: Org;
  let siteId: number;
  let standard: Hook;
  let slack: Hook;
  const PROMPTS = 30;
  const scans: { id: number; doneAt: number }[] = [];

  beforeAll(async () => {
    ws = await seedOrg(app.ctx, { balanceUsd: 100 });
    siteId = (await newSite(ws, 'Acme', 'acme.com')).id;
    await addActivePrompts(
      app.ctx,
      siteId,
      Array.from({ length: PROMPTS }, (_, n) => `Visq${String(n).padStart(2, '0')} which tool should a team use?`),
    );
    standard = await hook(ws, '/scans-standard', { events: ['visibility.changed', 'scan.completed'] });
    slack = await hook(ws, '/scans-slack', { events: ['visibility.changed'], format: 'slack' });
  });

  it('a first scan has nothing to compare with: scan.completed only, with its cost, answers and stop reason', async () => {
    await scriptAnswers('Visq', PROMPTS, () => 'Acme');
    scans.push(await scan(ws, siteId, { providers: ['openai'] }));
    await receiver.waitFor(standard.path, 1);
    await settle();
    const got = events(standard);
    expect(got.map((e) => e.type)).toEqual(['scan.completed']);
    expect(got[0]?.data).toMatchObject({
      projectId: siteId,
      projectName: 'Acme',
      scan: {
        id: scans[0]?.id,
        status: 'done',
        answersDone: PROMPTS,
        answersFailed: 0,
        stopReason: null,
        costUsd: (PROMPTS * defaultModel('openai').priceMicros) / 1e6,
      },
    });
    expect(receiver.to(slack.path)).toHaveLength(0);
  });

  it('a dip within noise (30 of 30 named, then 27) fires nothing', async () => {
    await scriptAnswers('Visq', PROMPTS, (n) => (n < 3 ? 'Globex' : 'Acme'));
    scans.push(await scan(ws, siteId, { providers: ['openai'] }));
    await receiver.waitFor(standard.path, 2);
    await settle();
    expect(events(standard).map((e) => e.type)).toEqual(['scan.completed', 'scan.completed']);
    expect(receiver.to(slack.path)).toHaveLength(0);
  });

  it('a real drop (27 of 30, then 5) fires exactly one visibility.changed, signed and to Slack, within seconds of the scan’s end', async () => {
    await scriptAnswers('Visq', PROMPTS, (n) => (n < 5 ? 'Acme' : 'Globex'));
    const third = await scan(ws, siteId, { providers: ['openai'] });
    scans.push(third);
    const [got] = (await receiver.waitFor(slack.path, 1, 5_000)).slice(-1);
    await receiver.waitFor(standard.path, 4, 5_000);
    const arrivedAt = Math.max(got?.at ?? 0, ...receiver.to(standard.path).map((r) => r.at));
    expect(arrivedAt - third.doneAt).toBeLessThan(3_000);
    await settle();
    const changed = events(standard, 'visibility.changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]?.data).toMatchObject({
      projectId: siteId,
      metric: 'visibility',
      comparison: { kind: 'scan', before: { scanId: scans[1]?.id }, after: { scanId: third.id } },
      before: { value: 90, answers: PROMPTS },
      after: { value: 16.7, answers: PROMPTS },
      change: -73.3,
      direction: 'down',
    });
    const data = changed[0]?.data as {
      before: { low: number; high: number };
      after: { low: number; high: number };
      pValue: number;
    };
    // The report's 95% ranges (Wilson: one answer per prompt).
    expect(data.before.low).toBeCloseTo(74.4, 0);
    expect(data.before.high).toBeCloseTo(96.5, 0);
    expect(data.after.low).toBeLessThan(16.7);
    expect(data.after.high).toBeGreaterThan(16.7);
    expect(data.pValue).toBeLessThan(0.05);
    // Slack: an incoming-webhook message with what changed, the ranges and a link.
    const message = JSON.parse(got?.body ?? '{}') as {
      text: string;
      blocks: { type: string; text?: { text: string }; fields?: { text: string }[]; elements?: { text: string }[] }[];
    };
    expect(message.text).toBe('Acme: visibility fell 73.3 points');
    const all = JSON.stringify(message.blocks);
    expect(all).toContain('90.0% (95% range');
    expect(all).toContain('16.7% (95% range');
    expect(all).toContain(`/projects/${siteId}/scans/${third.id}`);
    expect(got?.headers['webhook-id']).toBe(changed[0]?.id);
  });
});

describe('prompts won and lost, a competitor overtaking, project filters', () => {
  it('fires per prompt and per competitor only what is real, and only to webhooks of that project', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 100 });
    const tracked = await newSite(ws, 'Acme', 'acme.com', [{ name: 'Globex', domain: 'globex.com' }]);
    const elsewhere = await newSite(ws, 'Elsewhere', 'elsewhere.com');
    const mine = await hook(ws, '/prompts', {
      events: ['prompt.won', 'prompt.lost', 'competitor.overtook'],
      projectIds: [tracked.id],
    });
    const theirs = await hook(ws, '/prompts-elsewhere', { events: ['*'], projectIds: [elsewhere.id] });
    await addActivePrompts(
      app.ctx,
      tracked.id,
      Array.from({ length: 12 }, (_, n) => `Ovq${String(n).padStart(2, '0')} which tool should a team use?`),
    );
    const settings = { providers: ['openai', 'anthropic'], samples: 2 };
    await scriptAnswers('Ovq', 12, () => 'Acme');
    await scan(ws, tracked.id, settings);
    // Eight prompts now name Globex alone: each lost 4 of 4 -> 0 of 4 (Fisher p = 0.029), and Globex overtakes.
    await scriptAnswers('Ovq', 12, (n) => (n < 8 ? 'Globex' : 'Acme'));
    const second = await scan(ws, tracked.id, settings);
    await receiver.waitFor(mine.path, 9, 10_000);
    await settle();
    const lost = events(mine, 'prompt.lost');
    expect(lost).toHaveLength(8);
    expect(events(mine, 'prompt.won')).toHaveLength(0);
    expect(lost[0]?.data).toMatchObject({
      before: { named: 4, answered: 4 },
      after: { named: 0, answered: 4 },
      comparison: { kind: 'scan', after: { scanId: second.id } },
    });
    expect((lost[0]?.data as { pValue: number }).pValue).toBeLessThan(0.05);
    const overtook = events(mine, 'competitor.overtook');
    expect(overtook).toHaveLength(1);
    expect(overtook[0]?.data).toMatchObject({
      competitor: { name: 'Globex' },
      before: { brand: { value: 100 }, competitor: { value: 0 }, answers: 48 },
      after: { brand: { value: 33.3 }, competitor: { value: 66.7 }, answers: 48 },
    });
    // Every event has its own id; the project-scoped webhook of another site got none of them.
    expect(new Set(events(mine).map((e) => e.id)).size).toBe(9);
    expect(receiver.to(theirs.path)).toHaveLength(0);
  });
});

describe('period on period', () => {
  it('compares a week that ended with the one before: a real drop fires once, noise nothing, a second run nothing', async () => {
    const ws = await seedOrg(app.ctx);
    const real = await newSite(ws, 'Acme', 'acme.com');
    const noisy = await newSite(ws, 'Noisy', 'noisy.com');
    const h = await hook(ws, '/periods', { events: ['visibility.changed'] });
    const thisWeek = periodStart('week', new Date().toISOString().slice(0, 10));
    const ended = addPeriods('week', thisWeek, -1);
    const before = addPeriods('week', thisWeek, -2);
    const rows = (start: string, named: (n: number) => boolean, brand: string) =>
      Array.from({ length: 20 }, (_, n) => ({
        prompt: `Period question ${n} about tools?`,
        provider: 'openai' as const,
        askedAt: `${start}T10:00:00Z`,
        text: named(n) ? `${brand} is the pick.` : 'Initech is the pick.',
        citations: [],
        searches: [],
      }));
    await importAnswers(
      app.ctx,
      ws.orgId,
      real.id,
      rows(before, () => true, 'Acme'),
    );
    await importAnswers(
      app.ctx,
      ws.orgId,
      real.id,
      rows(ended, (n) => n < 4, 'Acme'),
    );
    await importAnswers(
      app.ctx,
      ws.orgId,
      noisy.id,
      rows(before, () => true, 'Noisy'),
    );
    await importAnswers(
      app.ctx,
      ws.orgId,
      noisy.id,
      rows(ended, (n) => n >= 2, 'Noisy'),
    );

    expect(await comparePeriod(app.ctx, noisy.id, 'week', ended)).toBe(0);
    expect(await comparePeriod(app.ctx, real.id, 'week', ended)).toBe(1);
    // Compared once: again (a retried tick, the daily tick) fires nothing.
    expect(await comparePeriod(app.ctx, real.id, 'week', ended)).toBe(0);
    const tick = await runWebhookPeriodTick({ ...app.ctx, clock: fixedClock(`${thisWeek}T00:30:00Z`) });
    expect(tick.deliveries).toBe(0);
    await receiver.waitFor(h.path, 1);
    await settle();
    const got = events(h);
    expect(got).toHaveLength(1);
    expect(got[0]?.data).toMatchObject({
      projectId: real.id,
      comparison: { kind: 'period', period: 'week', before: { start: before }, after: { start: ended } },
      before: { value: 100, answers: 20 },
      after: { value: 20, answers: 20 },
      direction: 'down',
    });
    expect(got[0]?.data.link).toContain(`/projects/${real.id}/report?period=week&start=${ended}`);
  });
});

describe('crawler checks', () => {
  it('fires when robots.txt changes what a crawler may read and when llms.txt appears, changes or vanishes; never for an unreadable file', async () => {
    const ws = await seedOrg(app.ctx);
    const tracked = await newSite(ws, 'Crawl Shop', 'crawl-shop.com');
    const h = await hook(ws, '/crawlers', { events: ['crawler.access_changed', 'llms_txt.changed'] });
    const check = async () => {
      const { check: row } = await requestCrawlerCheck(app.ctx, { id: tracked.id }, null, 'cli', { queue: false });
      await runCrawlerCheck(app.ctx, tracked.id, row.id);
    };
    await check();
    site.set('/robots.txt', 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow:\n');
    site.set('/llms.txt', '# Crawl Shop\n\n> Shoes.\n');
    await check();
    site.set('/llms.txt', '# Crawl Shop\n\n> Shoes and socks.\n');
    await check();
    // Unreadable robots.txt (a 500) and llms.txt: crawlers then read nothing, but nothing about the files changed.
    site.set('/robots.txt', { status: 500, body: 'oops' });
    site.set('/llms.txt', { status: 503, body: 'oops' });
    await check();
    site.set('/robots.txt', 'User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow:\n');
    site.remove('/llms.txt');
    await check();
    await receiver.waitFor(h.path, 4);
    await settle();
    // Deliveries run side by side, so events reach the receiver in no set order (the two of one check were seen
    // either way round): each kind is checked alone, in the order its events happened.
    expect(
      events(h)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['crawler.access_changed', 'llms_txt.changed', 'llms_txt.changed', 'llms_txt.changed']);
    expect(events(h, 'crawler.access_changed')[0]?.data).toMatchObject({
      projectId: tracked.id,
      robots: { before: 'found', after: 'found' },
      changes: [
        {
          agent: 'GPTBot',
          company: 'OpenAI',
          before: 'allowed',
          after: 'blocked',
          decidingLine: { line: 2, text: 'Disallow: /' },
        },
      ],
    });
    const llms = events(h, 'llms_txt.changed').sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    expect(llms.map((e) => e.data.change)).toEqual(['appeared', 'changed', 'vanished']);
  });
});

describe('money', () => {
  it('budget.cap_reached fires once a month per site, when a scan stops at the cap', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 100 });
    const tracked = await newSite(ws, 'Capped', 'capped.com');
    const h = await hook(ws, '/cap', { events: ['budget.cap_reached'] });
    await addActivePrompts(
      app.ctx,
      tracked.id,
      Array.from({ length: 6 }, (_, n) => `Capq${n} which tool?`),
    );
    const price = defaultModel('openai').priceMicros;
    await app.request('PATCH', `/projects/${tracked.id}`, {
      key: ws.keys.admin,
      body: { monthlyCapUsd: (2.5 * price) / 1e6 },
    });
    const first = await scan(ws, tracked.id, { providers: ['openai'] });
    expect(first.scan).toMatchObject({ stopReason: 'cap', answersDone: 2 });
    await app.request('PATCH', `/projects/${tracked.id}`, {
      key: ws.keys.admin,
      body: { monthlyCapUsd: (3.5 * price) / 1e6 },
    });
    const second = await scan(ws, tracked.id, { providers: ['openai'] });
    expect(second.scan).toMatchObject({ stopReason: 'cap' });
    await receiver.waitFor(h.path, 1);
    await settle();
    const got = events(h);
    expect(got).toHaveLength(1);
    expect(got[0]?.data).toMatchObject({
      projectId: tracked.id,
      scanId: first.id,
      capUsd: (2.5 * price) / 1e6,
      spentUsd: (2 * price) / 1e6,
    });
  });

  it('balance.low fires once per crossing of the threshold, to project-scoped webhooks too', async () => {
    const ws = await seedOrg(app.ctx, { balanceUsd: 10 });
    const tracked = await newSite(ws, 'Spender', 'spender.com');
    const h = await hook(ws, '/balance', { events: ['balance.low'], projectIds: [tracked.id] });
    await addActivePrompts(app.ctx, tracked.id, ['Balq0 which tool?', 'Balq1 which tool?']);
    // Default: 10% of the last top-up (10 USD: 1 USD); set just under the balance so the next charge crosses it.
    expect((await app.request('GET', `/orgs/${ws.orgId}/alert-settings`, { key: ws.keys.admin })).body).toMatchObject({
      balanceLowUsd: null,
      effectiveBalanceLowUsd: 1,
      lastTopUpUsd: 10,
    });
    const set = await app.request('PATCH', `/orgs/${ws.orgId}/alert-settings`, {
      key: ws.keys.admin,
      body: { balanceLowUsd: 9.999 },
    });
    expect(set.body).toMatchObject({ balanceLowUsd: 9.999, effectiveBalanceLowUsd: 9.999 });
    await scan(ws, tracked.id, { providers: ['openai'] });
    await scan(ws, tracked.id, { providers: ['openai'] });
    await receiver.waitFor(h.path, 1);
    await settle();
    expect(events(h)).toHaveLength(1);
    // A top-up lifts it above; the next fall under fires again.
    await topUp(app.ctx, { orgId: ws.orgId, amountMicros: usdToMicros(1) });
    await app.request('PATCH', `/orgs/${ws.orgId}/alert-settings`, {
      key: ws.keys.admin,
      body: { balanceLowUsd: 10.99 },
    });
    await scan(ws, tracked.id, { providers: ['openai'] });
    await receiver.waitFor(h.path, 2);
    await settle();
    const got = events(h);
    expect(got).toHaveLength(2);
    expect(got[1]?.data).toMatchObject({
      projectId: tracked.id,
      thresholdUsd: 10.99,
      thresholdFrom: 'setting',
      lastTopUpUsd: 1,
    });
  });
});

describe('scan.failed', () => {
  it('fires when a scan ends failed, with its error', async () => {
    const ws = await seedOrg(app.ctx);
    const tracked = await newSite(ws, 'Failing', 'failing.com');
    const h = await hook(ws, '/failed', { events: ['scan.failed', 'scan.completed'] });
    const row = await app.ctx.db
      .insertInto('scans')
      .values({ orgId: ws.orgId, siteId: tracked.id, status: 'running', trigger: 'manual', budgetMicros: 1_000_000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await failScan(app.ctx, row.id, 'the scan job failed its last attempt');
    // A second end changes nothing and fires nothing.
    await failScan(app.ctx, row.id, 'again');
    await receiver.waitFor(h.path, 1);
    await settle();
    const got = events(h);
    expect(got.map((e) => e.type)).toEqual(['scan.failed']);
    expect(got[0]?.data).toMatchObject({
      scan: { id: row.id, status: 'failed', stopReason: 'error', error: 'the scan job failed its last attempt' },
    });
  });
});
