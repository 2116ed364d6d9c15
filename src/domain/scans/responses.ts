import { z } from 'zod';
import { answer } from '../facts/index.ts';
import { count, named, paging, provider, usd, scan, scanFields } from '../common/index.ts';
import { assistant } from '../providers/index.ts';
import { scanSettings } from '../sites/index.ts';
import { SCAN_TABS } from './schemas.ts';

/** Response schemas of scans (see src/domain/common/responses.ts). */

export const scanEstimate = named(
  'ScanEstimate',
  'Expected cost of a scan as configured: prompts, answers and cost, per assistant',
  z.object({
    prompts: count,
    answers: count,
    cost: usd.describe('USD'),
    formatted: z.string(),
    batch: z.boolean(),
    samples: z.int().positive(),
    providers: z.array(
      z.object({
        provider,
        model: z.string(),
        batch: z.boolean(),
        simulated: z.boolean(),
        answers: count,
        costPerAnswerUsd: usd,
        costUsd: usd,
      }),
    ),
  }),
);

export const scanOptionsResponse = named(
  'ScanOptions',
  'What a scan of this project can ask and what is left to spend: assistants with models and prices, active prompts per category, scans used this month, spend against the cap, the available balance, saved settings',
  z.object({
    providers: z.array(assistant.extend({ allowed: z.boolean().describe('The project allows this assistant') })),
    activePrompts: count,
    categories: z.array(z.object({ name: z.string(), activePrompts: count })),
    scansUsedThisMonth: count,
    scansPerMonth: count,
    spendThisMonthUsd: usd,
    monthlyCapUsd: usd.nullable(),
    balanceUsd: usd.describe('Available: the balance less what running scans hold reserved'),
    saved: scanSettings,
    batchAvailable: z.boolean(),
  }),
);

export const scanStarted = named(
  'ScanStarted',
  'The scan queued, and its estimate',
  z.object({ scan, estimate: scanEstimate }),
);

export const scanResponse = named('ScanResponse', 'The scan', z.object({ scan }));

export const scanList = named(
  'ScanList',
  'The project’s scans, newest first, a page at a time (the first page: the last 30)',
  z.object({ scans: z.array(scan), ...paging }),
);

export const liveScanResponse = named(
  'LiveScan',
  'The scan in progress with its pace and time left; run is null when none runs',
  z.object({
    run: named(
      'ScanRun',
      'A scan in progress',
      z.object({
        ...scanFields,
        progress: z.number().describe('Percent of answers done or failed'),
        pacePerMinute: z.number().nullable(),
        timeLeftSeconds: count.nullable(),
      }),
    ).nullable(),
  }),
);

export const scanDetailResponse = named(
  'ScanDetail',
  'One scan and a page of its answers (25 a page), filtered by tab and assistant',
  z.object({ scan, answers: z.array(answer), ...paging, tab: z.enum(SCAN_TABS), engine: provider.nullable() }),
);

export const samplingPlanResponse = named(
  'SamplingPlan',
  'How many samples per prompt and assistant a scan needs for a move of `detect` points in visibility to be called real at 95%, and what it costs',
  z.object({
    detect: z.number().describe('The move asked about, in points'),
    prompts: count.describe('Active prompts a scan with the saved settings asks'),
    assistants: z.array(provider).describe('The assistants it asks'),
    visibility: z
      .number()
      .nullable()
      .describe('Visibility over the latest month with answers (percent); null before any'),
    spread: z
      .object({
        month: z.iso.date(),
        prompts: count,
        answers: count,
        intraPromptCorrelation: z
          .number()
          .nullable()
          .describe(
            'How much more one prompt’s answers agree than two prompts’ do (0 to 1); null when it cannot be told',
          ),
      })
      .nullable()
      .describe('What the latest month’s answers show; null before any'),
    assumed: z
      .boolean()
      .describe(
        'The spread could not be measured: 50% visibility and independent answers are assumed, so real scans may need more',
      ),
    samples: z
      .int()
      .min(1)
      .max(5)
      .nullable()
      .describe('The fewest samples (1 to 5) that detect the move; null when 5 do not'),
    samplesNeeded: z
      .int()
      .positive()
      .nullable()
      .describe('The fewest samples that would, even past 5; null when not even 100 would'),
    estimate: z
      .object({ samples: z.int().positive(), answers: count, costUsd: usd, cost: z.string() })
      .describe('A scan at `samples` (or at 5 when none is enough)'),
    options: z.array(
      z.object({
        samples: z.int().positive(),
        answers: count,
        smallestRealChange: z
          .number()
          .nullable()
          .describe('The smallest move in visibility (points) this many samples would call real'),
        detects: z.boolean(),
        costUsd: usd,
        cost: z.string(),
      }),
    ),
    note: z.string(),
  }),
);
