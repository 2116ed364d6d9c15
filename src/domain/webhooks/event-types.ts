import { z } from 'zod';
import { count, dateTime, day, id, named, usd, scan } from '../common/index.ts';

/**
 * Every event a webhook can receive (CONTRACT.md "Webhooks"), and the body of
 * each delivery: `{type, timestamp, data}`. The schemas are the one
 * description of each payload: producers build `data` typed from them, the
 * OpenAPI document lists each under `webhooks` (so receivers can generate
 * types), and the tests validate what receivers got against them.
 */

export const EVENT_TYPES = [
  'scan.completed',
  'scan.failed',
  'visibility.changed',
  'share_of_voice.changed',
  'citations.changed',
  'prompt.won',
  'prompt.lost',
  'competitor.overtook',
  'crawler.access_changed',
  'llms_txt.changed',
  'budget.cap_reached',
  'balance.low',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The site an event is about, under the API's keys (`project...`). */
const aboutSite = {
  projectId: id,
  projectName: z.string(),
  /** Where a person reads more: the site's report for the periods compared, or its scan. */
  link: z.string().describe('The API address of the report (or scan) this event is about'),
};

/** The two scans or the two periods compared. */
const comparison = z
  .discriminatedUnion('kind', [
    z.object({
      kind: z.literal('scan'),
      before: z.object({ scanId: id, finishedAt: dateTime }),
      after: z.object({ scanId: id, finishedAt: dateTime }),
    }),
    z.object({
      kind: z.literal('period'),
      period: z.enum(['week', 'month', 'quarter']),
      before: z.object({ start: day, end: day }),
      after: z.object({ start: day, end: day }),
    }),
  ])
  .describe(
    'scan: a finished scan against the site’s previous finished scan with the same providers, models and samples; period: a period that ended against the one before',
  );

/** One side of a change: the share, its 95% range and what it was measured on. */
const measured = z.object({
  value: z.number().describe('Percent, one decimal'),
  low: z.number().describe('95% range, low end (percent)'),
  high: z.number().describe('95% range, high end (percent)'),
  answers: count.describe('Answers that did not fail'),
  mentions: count.optional().describe('Share of voice only: brand and tracked competitor mentions, its denominator'),
});

const metricChange = <const M extends string>(metric: M) =>
  z.object({
    ...aboutSite,
    comparison,
    metric: z.literal(metric),
    before: measured,
    after: measured,
    change: z.number().describe('after minus before, in points'),
    direction: z.enum(['up', 'down']),
    pValue: z
      .number()
      .describe('Two-proportion z-test on effective answers, as the report’s `...Real` flags; always under 0.05 here'),
  });

const promptChange = z.object({
  ...aboutSite,
  comparison,
  prompt: z.object({ id, text: z.string() }),
  before: z.object({
    named: count.describe('Answers naming or citing the brand'),
    answered: count.describe('Answers that did not fail'),
  }),
  after: z.object({ named: count, answered: count }),
  pValue: z.number().describe('Fisher’s exact test, two-sided; always under 0.05 here'),
});

const side = z.object({ value: z.number(), low: z.number(), high: z.number() });
const standing = z.object({
  brand: side.describe('The brand’s visibility'),
  competitor: side.describe('The competitor’s visibility'),
  answers: count,
});

const access = z.enum(['allowed', 'partial', 'blocked']);
const llmsState = z.object({
  state: z.enum(['present', 'missing', 'invalid']),
  title: z.string().nullable(),
  links: count.nullable(),
});

/** `data` of each event type. */
export const EVENT_DATA = {
  'scan.completed': z.object({ ...aboutSite, scan }),
  'scan.failed': z.object({ ...aboutSite, scan }),
  'visibility.changed': metricChange('visibility'),
  'share_of_voice.changed': metricChange('shareOfVoice'),
  'citations.changed': metricChange('ownCitationRate'),
  'prompt.won': promptChange,
  'prompt.lost': promptChange,
  'competitor.overtook': z.object({
    ...aboutSite,
    comparison,
    competitor: z.object({ id, name: z.string() }),
    before: standing,
    after: standing,
    brandShareOfPair: z
      .object({ before: side, after: side, pValue: z.number() })
      .describe('The brand’s share of the two’s mentions: its fall is what the real-change test judged'),
  }),
  'crawler.access_changed': z.object({
    ...aboutSite,
    checkId: id,
    previousCheckId: id,
    robotsUrl: z.string().nullable(),
    robots: z.object({ before: z.enum(['found', 'missing']), after: z.enum(['found', 'missing']) }),
    changes: z.array(
      z.object({
        agent: z.string(),
        company: z.string().nullable(),
        before: access,
        after: access,
        decidingLine: z.object({ line: z.int(), text: z.string() }).nullable(),
      }),
    ),
  }),
  'llms_txt.changed': z.object({
    ...aboutSite,
    checkId: id,
    previousCheckId: id,
    url: z.string().nullable(),
    change: z.enum(['appeared', 'vanished', 'changed']),
    before: llmsState,
    after: llmsState,
  }),
  'budget.cap_reached': z.object({
    ...aboutSite,
    month: day.describe('First day of the month whose cap is spent'),
    capUsd: usd,
    spentUsd: usd,
    scanId: id.nullable(),
  }),
  'balance.low': z.object({
    projectId: id.nullable().describe('The site whose scan took the balance under the threshold'),
    balanceUsd: usd,
    thresholdUsd: usd,
    thresholdFrom: z.enum(['setting', 'last-top-up']).describe('The workspace setting, or 10% of the last top-up'),
    lastTopUpUsd: usd.nullable(),
    scanId: id.nullable(),
  }),
  'webhook.test': z.object({ webhookId: id, message: z.string() }),
} as const satisfies Record<EventType, z.ZodType>;

export type EventData<T extends EventType> = z.input<(typeof EVENT_DATA)[T]>;

const PASCAL = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => `${w[0]?.toUpperCase() ?? ''}${w.slice(1)}`)
    .join('');

/** The body of a delivery of each type, named `<Type>Event` (ScanCompletedEvent...) as an OpenAPI component. */
export const EVENT_BODIES = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    named(
      `${PASCAL(type)}Event`,
      `The body of a \`${type}\` delivery (standard format)`,
      z.object({
        type: z.literal(type),
        timestamp: dateTime.describe('When the event happened'),
        data: EVENT_DATA[type],
      }),
    ),
  ]),
) as {
  [T in EventType]: z.ZodObject<{ type: z.ZodLiteral<T>; timestamp: typeof dateTime; data: (typeof EVENT_DATA)[T] }>;
};

/** What a producer hands the outbox: one event, in the transaction of the change that causes it. */
export interface EventDraft<T extends EventType = EventType> {
  type: T;
  orgId: number;
  /** Null for workspace events (balance.low): they reach every webhook of the workspace whatever its projectIds. */
  siteId: number | null;
  /** Set when the event may happen once (a scan's end, a period's change): a second write is ignored. */
  dedupeKey: string | null;
  data: EventData<T>;
}

export function draft<T extends EventType>(
  type: T,
  orgId: number,
  siteId: number | null,
  dedupeKey: string | null,
  data: EventData<T>,
): EventDraft<T> {
  return { type, orgId, siteId, dedupeKey, data };
}
