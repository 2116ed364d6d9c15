import { z } from 'zod';
import { siteType } from '../facts/index.ts';
import {
  count,
  dateTime,
  day,
  id,
  named,
  paging,
  percent,
  periodEcho,
  provider,
  stability,
  tone,
  usd,
  verdict,
} from '../common/index.ts';
import { stabilityChange } from '../prompts/index.ts';
import { siteEvent, schedule } from '../sites/index.ts';
import { limits, plan, role } from '../orgs/index.ts';
import { crawlerHitsItem } from './crawler-hits.ts';

/** Response schemas of the reports (see src/domain/common/responses.ts). Shares are percentages to one decimal, null when their whole is empty. */

const headlineFields = {
  answers: count,
  answered: count.describe('Answers that did not fail'),
  failed: count,
  mentioned: count.describe('Answers naming the brand'),
  ownCited: count.describe('Answers linking one of the site’s pages'),
  visibility: percent.describe('Percent of answered answers naming the brand'),
  brandRank: z.number().nullable().describe('Mean rank of the brand where named (1 is first)'),
  shareOfVoice: percent.describe('Brand mentions among brand and tracked competitor mentions, percent'),
};

/** 95% intervals of the shares (clustered by prompt); nulls where there is no share. */
const intervalFields = {
  ownCitationRate: percent.describe('Percent of answered answers linking one of the site’s pages'),
  visibilityLow: percent,
  visibilityHigh: percent,
  ownCitationRateLow: percent,
  ownCitationRateHigh: percent,
  shareOfVoiceLow: percent,
  shareOfVoiceHigh: percent,
};

export const headlineResponse = named(
  'Headline',
  'The numbers of a set of answers, with the 95% interval (Low, High) of each share',
  z.object({ ...headlineFields, ...intervalFields }),
);

export const headlineChange = named(
  'HeadlineChange',
  'Current minus previous (null where either side has none), and whether each share moved by more than its noise (null when it cannot be told)',
  z.object({
    answers: z.int(),
    mentioned: z.int(),
    ownCited: z.int(),
    visibility: z.number().nullable(),
    brandRank: z.number().nullable(),
    shareOfVoice: z.number().nullable(),
    ownCitationRate: z.number().nullable(),
    visibilityReal: z.boolean().nullable(),
    ownCitationRateReal: z.boolean().nullable(),
    shareOfVoiceReal: z.boolean().nullable(),
  }),
);

export const promptChange = named(
  'PromptChange',
  'A prompt won (the brand now named or cited) or lost since the previous period, with its counts and whether the change is larger than noise',
  z.object({
    id,
    text: z.string(),
    verdict,
    previousVerdict: verdict,
    named: count,
    answered: count,
    previousNamed: count,
    previousAnswered: count,
    pValue: z.number(),
    real: z.boolean(),
  }),
);

const promptChanges = z.object({ won: z.array(promptChange), lost: z.array(promptChange) });

export const source = named(
  'Source',
  'A cited domain: answers citing it (count), citations, and the percent of those answers naming the brand',
  z.object({
    domain: z.string(),
    siteType,
    count,
    citations: count,
    namesBrand: percent,
    namesBrandLow: percent,
    namesBrandHigh: percent,
  }),
);

const readFrom = z.enum(['api', 'app', 'search page']);

const providerShares = named(
  'ProviderShares',
  'One assistant’s shares in one period of the chart series, each with its 95% interval (Low, High)',
  z.object({ answered: count, visibility: percent, shareOfVoice: percent, ...intervalFields }),
);

/** A share's 95% interval, `<share>Low` and `<share>High` (clustered by prompt; null where there is no share). */
const bounds = <K extends string>(...names: K[]) =>
  Object.fromEntries(
    names.flatMap((n) => [
      [`${n}Low`, percent],
      [`${n}High`, percent],
    ]),
  ) as Record<`${K}Low` | `${K}High`, typeof percent>;

export const report = named(
  'Report',
  'A project’s numbers for one period against the previous one',
  z.object({
    previousStart: day,
    current: headlineResponse,
    previous: headlineResponse,
    change: headlineChange,
    ranking: z.array(
      z.object({
        rank: z.int().positive(),
        name: z.string(),
        kind: z.enum(['brand', 'competitor']),
        competitorId: id.nullable(),
        mentioned: count,
        visibility: percent,
        shareOfVoice: percent,
        previousVisibility: percent,
        visibilityLow: percent,
        visibilityHigh: percent,
        shareOfVoiceLow: percent,
        shareOfVoiceHigh: percent,
      }),
    ),
    providers: z.array(
      headlineResponse.extend({ provider, name: z.string(), previous: headlineResponse, change: headlineChange }),
    ),
    changes: promptChanges,
    topSources: z.array(source),
    series: z.array(
      headlineResponse.extend({
        start: day,
        providers: z.record(z.string(), percent).describe('Visibility per provider key'),
        providerShares: z
          .record(z.string(), providerShares)
          .describe('Each assistant’s shares with their 95% intervals, per provider key'),
      }),
    ),
    scope: z
      .object({
        assistants: z.array(
          z.object({
            provider,
            name: z.string(),
            answers: count,
            readFrom: z.array(readFrom),
            models: z.array(z.object({ model: z.string(), readFrom: readFrom.nullable(), answers: count })),
          }),
        ),
        questions: count,
        answersPerQuestion: z.number().nullable(),
        place: z.string(),
        language: z.string(),
      })
      .optional()
      .describe('Variant A: what the numbers were measured on'),
  }),
);

export const reportResponse = named(
  'ReportResponse',
  'The period shown and its report; report is null before the first scan',
  z.object({ ...periodEcho, report: report.nullable() }),
);

const listedPrompt = z.object({
  id,
  text: z.string(),
  real: z.boolean().nullable().describe('The latest period departs from the earlier ones by more than noise'),
});

export const trends = named(
  'Trends',
  'Ten periods ending with the one asked for: shares per period, every active prompt’s verdicts, prompts won and lost, shares per category, the held, volatile and lost prompts, and (variant B) the events in the window',
  z.object({
    ...periodEcho,
    window: z.array(day),
    shares: z.array(headlineResponse.extend({ start: day })),
    prompts: z.array(
      z.object({
        id,
        text: z.string(),
        verdicts: z.array(verdict.nullable()).describe('One per period of the window'),
        stability: stability.nullable(),
        stabilityChange: stabilityChange.nullable(),
      }),
    ),
    changes: promptChanges,
    categories: z.array(
      z.object({
        id,
        name: z.string(),
        shares: z.array(
          z.object({
            start: day,
            answered: count,
            mentioned: count,
            visibility: percent,
            shareOfVoice: percent,
            ...intervalFields,
          }),
        ),
      }),
    ),
    held: z.array(listedPrompt),
    volatile: z.array(listedPrompt),
    lost: z.array(listedPrompt),
    crawlerHits: z
      .array(crawlerHitsItem)
      .describe('AI agents’ hits and assistants’ referrals per period of the window, from imported server logs'),
    events: z.array(siteEvent).optional(),
  }),
);

const toneFields = {
  answers: count.describe('Answers naming the brand'),
  positive: count,
  neutral: count,
  negative: count,
  positiveShare: percent,
  neutralShare: percent,
  negativeShare: percent,
  ...bounds('positiveShare', 'neutralShare', 'negativeShare'),
  score: z.number().nullable().describe('Mean tone score in [-1, 1]'),
};

export const tones = named('Tones', 'Tone of the answers naming the brand', z.object(toneFields));

export const sentiment = named(
  'Sentiment',
  'Tone per assistant among answers naming the brand, this period and the previous; with answers=1 a page of those answers with tone and quoted sentence',
  z.object({
    ...periodEcho,
    overall: tones,
    previous: tones,
    providers: z.array(z.object({ provider, name: z.string(), ...toneFields })),
    answers: z
      .array(
        z.object({
          answerId: id,
          promptId: id,
          prompt: z.string(),
          provider,
          model: z.string(),
          askedAt: dateTime,
          brandRank: z.int().positive().nullable(),
          tone,
          score: z.number().nullable(),
          quote: z.string().nullable(),
        }),
      )
      .optional(),
    total: count.optional(),
    page: z.int().positive().optional(),
    perPage: z.int().positive().optional(),
  }),
);

export const sources = named(
  'Sources',
  'Every cited domain (paged) with the percent of answered answers citing it (share), citations per site type, and the brand’s own pages with the prompts and assistants linking to each',
  z.object({
    ...periodEcho,
    answered: count,
    sources: z.array(source.extend({ share: percent, ...bounds('share') })),
    ...paging,
    siteTypes: z.array(
      z.object({
        siteType,
        domains: count,
        citations: count,
        share: percent.describe('Percent of all citations'),
        ...bounds('share'),
      }),
    ),
    ownPages: z.array(
      z.object({
        url: z.string(),
        count,
        promptCount: count,
        prompts: z.array(z.object({ id, text: z.string(), count })),
        providers: z.array(z.object({ provider, count })),
      }),
    ),
  }),
);

const headToHead = {
  both: count.describe('Answers naming both'),
  brandAhead: count,
  competitorAhead: count,
  onlyBrand: z.int(),
  onlyCompetitor: z.int(),
};

export const competitorReport = named(
  'CompetitorReport',
  'Tracked competitors against the brand: mentions overall and per assistant, head-to-head counts, untracked names the answers rank beside them',
  z.object({
    ...periodEcho,
    answered: count,
    brand: z.object({
      name: z.string(),
      mentioned: count,
      visibility: percent,
      shareOfVoice: percent,
      previousVisibility: percent,
      ...bounds('visibility', 'shareOfVoice', 'previousVisibility'),
    }),
    competitors: z.array(
      z.object({
        id,
        name: z.string(),
        domain: z.string().nullable(),
        color: z.string().nullable(),
        logo: z.string().nullable(),
        mentioned: count,
        cited: count,
        visibility: percent,
        shareOfVoice: percent,
        previousVisibility: percent,
        change: z.number().nullable(),
        ...bounds('visibility', 'shareOfVoice', 'previousVisibility'),
        headToHead: z.object(headToHead),
      }),
    ),
    providers: z.array(
      z.object({
        provider,
        name: z.string(),
        answered: count,
        brand: z.object({ mentioned: count, visibility: percent, ...bounds('visibility') }),
        competitors: z.array(z.object({ id, mentioned: count, visibility: percent, ...bounds('visibility') })),
      }),
    ),
    suggestions: z.array(z.object({ name: z.string(), count })),
  }),
);

const side = z.object({
  mentioned: count,
  visibility: percent,
  cited: count,
  shareOfVoice: percent.describe('Mentions among the brand’s and this competitor’s mentions, percent'),
  ...bounds('visibility', 'shareOfVoice'),
});
const paired = { answered: count, brand: side, competitor: side, ...headToHead };
const listed = z.array(z.object({ id, text: z.string() }));
const mentions = z.object({ mentioned: count, visibility: percent, ...bounds('visibility') });

export const competitorDetailResponse = named(
  'CompetitorDetail',
  'One competitor against the brand: paired numbers this period and the previous, per assistant, per category, prompts split three ways, its cited pages',
  z.object({
    ...periodEcho,
    competitor: z.object({
      id,
      name: z.string(),
      domain: z.string().nullable(),
      aliases: z.array(z.string()),
      color: z.string().nullable(),
      logo: z.string().nullable(),
    }),
    current: z.object(paired),
    previous: z.object(paired),
    providers: z.array(z.object({ provider, name: z.string(), ...paired })),
    categories: z.array(z.object({ id, name: z.string(), answered: count, brand: mentions, competitor: mentions })),
    prompts: z.object({
      counts: z.object({ both: count, onlyBrand: count, onlyCompetitor: count }),
      both: listed,
      onlyBrand: listed,
      onlyCompetitor: listed,
    }),
    pages: z.array(z.object({ url: z.string(), count })),
  }),
);

export const searches = named(
  'Searches',
  'Web searches the assistants ran for active prompts, most common first: answers running each (count) and prompts',
  z.object({ ...periodEcho, searches: z.array(z.object({ query: z.string(), count, prompts: count })), ...paging }),
);

export const dashboardResponse = named(
  'Dashboard',
  'Every site with its latest week’s numbers, connected assistants, limits and scans used this month',
  z.object({
    org: z.object({ id, name: z.string(), plan, role, balanceUsd: usd }),
    connectedAssistants: z.array(provider),
    limits: limits.extend({ scansUsedThisMonth: count }),
    scansUsedThisMonth: count,
    sites: z.array(
      named(
        'DashboardSite',
        'A site with the numbers of its latest week with data (nulls before its first scan)',
        z.object({
          id,
          name: z.string(),
          domain: z.string(),
          period: z.literal('week'),
          start: z.iso.date().nullable(),
          answers: count,
          visibility: percent,
          visibilityLow: percent.describe('95% interval of visibility'),
          visibilityHigh: percent,
          mentioned: count.nullable(),
          ownCited: count.nullable(),
          brandRank: z.number().nullable(),
          shareOfVoice: percent,
          shareOfVoiceLow: percent.describe('95% interval of share of voice'),
          shareOfVoiceHigh: percent,
          lastScanAt: dateTime.nullable(),
          schedule,
        }),
      ),
    ),
  }),
);
