import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { deliveryBody } from '../../src/domain/webhooks/deliver.ts';
import { EVENT_BODIES, EVENT_DATA, EVENT_TYPES, type EventData } from '../../src/domain/webhooks/event-types.ts';
import { JITTER, retryDelayMs } from '../../src/domain/webhooks/retries.ts';
import { generateSecret, sign, signedHeaders } from '../../src/domain/webhooks/signing.ts';
import { slackMessage } from '../../src/domain/webhooks/slack.ts';

/**
 * Webhook pieces without I/O: Standard Webhooks signatures (checked against
 * the `standardwebhooks` package), the retry schedule, Slack messages and
 * the event payload schemas.
 */

describe('signatures', () => {
  it('signs exactly as the standardwebhooks package does, and its verifier accepts ours', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const at = new Date('2026-11-28T10:00:00Z');
    const body = JSON.stringify({
      type: 'webhook.test',
      timestamp: at.toISOString(),
      data: { webhookId: 1, message: 'é ✓' },
    });
    expect(sign(secret, 'evt_1', Math.floor(at.getTime() / 1000), body)).toBe(
      new Webhook(secret).sign('evt_1', at, body),
    );
    const headers = signedHeaders([secret], 'evt_1', new Date(), body);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
  });

  it('sends one signature per valid secret, each verifying alone', () => {
    const [current, previous] = [generateSecret(), generateSecret()];
    const body = '{"type":"webhook.test"}';
    const headers = signedHeaders([current, previous], 'evt_2', new Date(), body);
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(() => new Webhook(current).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(previous).verify(body, headers)).not.toThrow();
  });
});

describe('retries', () => {
  const delays = loadConfig({}).webhooks.retryDelaysMs;

  it('defaults to Svix’s schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (eight attempts, about a day)', () => {
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
    const hours = delays.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(24 * (1 - JITTER));
    expect(hours).toBeLessThan(24 * (1 + 2 * JITTER));
  });

  it('moves each delay by up to 20% either way, and has none after the last retry', () => {
    expect(retryDelayMs(delays, 1, () => 0)).toBe(4_000);
    expect(retryDelayMs(delays, 1, () => 1)).toBe(6_000);
    expect(retryDelayMs(delays, 4, () => 0.5)).toBe(7_200_000);
    expect(retryDelayMs(delays, 7, () => 0.5)).toBe(36_000_000);
    expect(retryDelayMs(delays, 8)).toBeNull();
  });

  it('refuses a malformed schedule in the configuration', () => {
    expect(() => loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '5000,soon' })).toThrow(/WEBHOOK_RETRY_DELAYS_MS/);
    expect(loadConfig({ WEBHOOK_RETRY_DELAYS_MS: '10, 20' }).webhooks.retryDelaysMs).toEqual([10, 20]);
    expect(loadConfig({}).webhooks).toMatchObject({ timeoutMs: 10_000, maxInFlight: 10, workerConcurrency: 50 });
  });
});

const comparison = {
  kind: 'scan' as const,
  before: { scanId: 1, finishedAt: '2026-11-20T10:00:00.000Z' },
  after: { scanId: 2, finishedAt: '2026-11-27T10:00:00.000Z' },
};
const aboutSite = { projectId: 7, projectName: 'Acme <Labs> & Co', link: 'http://127.0.0.1:8080/projects/7/scans/2' };

/** One valid payload per event type. */
const SAMPLES: { [T in (typeof EVENT_TYPES)[number]]: EventData<T> } = {
  'scan.completed': {
    ...aboutSite,
    scan: {
      id: 2,
      projectId: 7,
      status: 'done',
      label: null,
      trigger: 'manual',
      batch: false,
      costUsd: 0.3,
      cost: '$0.30',
      budgetUsd: 1,
      stopReason: null,
      answersTotal: 30,
      answersDone: 30,
      answersFailed: 0,
      providers: ['openai'],
      models: { openai: 'gpt-5-mini' },
      category: null,
      samples: 1,
      simulated: false,
      simulatedProviders: [],
      error: null,
      createdAt: '2026-11-27T09:59:00.000Z',
      startedAt: '2026-11-27T09:59:01.000Z',
      finishedAt: '2026-11-27T10:00:00.000Z',
    },
  },
  'scan.failed': undefined as never,
  'visibility.changed': {
    ...aboutSite,
    comparison,
    metric: 'visibility',
    before: { value: 90, low: 74.4, high: 96.5, answers: 30 },
    after: { value: 16.7, low: 7.3, high: 33.6, answers: 30 },
    change: -73.3,
    direction: 'down',
    pValue: 0,
  },
  'share_of_voice.changed': undefined as never,
  'citations.changed': undefined as never,
  'prompt.won': {
    ...aboutSite,
    comparison,
    prompt: { id: 3, text: 'Best <CRM>?' },
    before: { named: 0, answered: 6 },
    after: { named: 6, answered: 6 },
    pValue: 0.0022,
  },
  'prompt.lost': undefined as never,
  'competitor.overtook': {
    ...aboutSite,
    comparison,
    competitor: { id: 4, name: 'Globex' },
    before: { brand: { value: 100, low: 80, high: 100 }, competitor: { value: 0, low: 0, high: 20 }, answers: 48 },
    after: { brand: { value: 33.3, low: 15, high: 58 }, competitor: { value: 66.7, low: 42, high: 85 }, answers: 48 },
    brandShareOfPair: {
      before: { value: 100, low: 80, high: 100 },
      after: { value: 33.3, low: 15, high: 58 },
      pValue: 0.001,
    },
  },
  'crawler.access_changed': {
    ...aboutSite,
    checkId: 9,
    previousCheckId: 8,
    robotsUrl: 'https://acme.com/robots.txt',
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
  },
  'llms_txt.changed': {
    ...aboutSite,
    checkId: 9,
    previousCheckId: 8,
    url: 'https://acme.com/llms.txt',
    change: 'appeared',
    before: { state: 'missing', title: null, links: null },
    after: { state: 'present', title: 'Acme', links: 3 },
  },
  'budget.cap_reached': { ...aboutSite, month: '2026-11-01', capUsd: 10, spentUsd: 10.01, scanId: 2 },
  'balance.low': {
    projectId: 7,
    balanceUsd: 4.5,
    thresholdUsd: 5,
    thresholdFrom: 'last-top-up',
    lastTopUpUsd: 50,
    scanId: 2,
  },
  'webhook.test': { webhookId: 1, message: 'hello' },
};
SAMPLES['scan.failed'] = {
  ...SAMPLES['scan.completed'],
  scan: { ...SAMPLES['scan.completed'].scan, status: 'failed', stopReason: 'error', error: 'boom <x>' },
};
SAMPLES['share_of_voice.changed'] = {
  ...SAMPLES['visibility.changed'],
  metric: 'shareOfVoice',
  before: { ...SAMPLES['visibility.changed'].before, mentions: 40 },
};
SAMPLES['citations.changed'] = {
  ...SAMPLES['visibility.changed'],
  metric: 'ownCitationRate',
  direction: 'up',
  change: 12,
};
SAMPLES['prompt.lost'] = {
  ...SAMPLES['prompt.won'],
  before: { named: 6, answered: 6 },
  after: { named: 0, answered: 6 },
};

describe('event payloads', () => {
  it('describe every event type, and each sample payload fits its schema', () => {
    expect(Object.keys(EVENT_DATA).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) expect(() => EVENT_DATA[type].parse(SAMPLES[type]), type).not.toThrow();
  });

  it('a standard body is {type, timestamp, data}, as its schema says', () => {
    const body = JSON.parse(
      deliveryBody('standard', {
        type: 'webhook.test',
        data: SAMPLES['webhook.test'],
        createdAt: new Date('2026-11-28T10:00:00Z'),
      }),
    );
    expect(body).toEqual({
      type: 'webhook.test',
      timestamp: '2026-11-28T10:00:00.000Z',
      data: { webhookId: 1, message: 'hello' },
    });
    expect(() => EVENT_BODIES['webhook.test'].parse(body)).not.toThrow();
  });
});

describe('Slack messages', () => {
  it('give every event type a text line and blocks, escaping what Slack would read as markup', () => {
    for (const type of EVENT_TYPES) {
      const message = slackMessage({ type, data: EVENT_DATA[type].parse(SAMPLES[type]) } as Parameters<
        typeof slackMessage
      >[0]);
      expect(message.text.length, type).toBeGreaterThan(10);
      expect(message.blocks.length, type).toBeGreaterThan(0);
      const all = JSON.stringify(message.blocks);
      expect(all, type).not.toContain('<Labs>');
      expect(all, type).not.toContain('<CRM>');
      expect(all, type).not.toContain('<x>');
    }
  });

  it('says what changed, before and after with their 95% ranges, and links to it', () => {
    const m = slackMessage({
      type: 'visibility.changed',
      data: EVENT_DATA['visibility.changed'].parse(SAMPLES['visibility.changed']),
    });
    expect(m.text).toBe('Acme &lt;Labs&gt; &amp; Co: visibility fell 73.3 points');
    const all = JSON.stringify(m.blocks);
    expect(all).toContain('90.0% (95% range 74.4% to 96.5%, 30 answers)');
    expect(all).toContain('16.7% (95% range 7.3% to 33.6%, 30 answers)');
    expect(all).toContain('<http://127.0.0.1:8080/projects/7/scans/2|The report>');
    expect(all).toContain('Acme &lt;Labs&gt; &amp; Co');
  });
});
