import { z } from 'zod';
import { answer } from '../facts/index.ts';
import {
  byProvider,
  count,
  dateTime,
  day,
  id,
  named,
  oneOf,
  paging,
  periodKind,
  provider,
  stability,
  tone,
  verdict,
} from '../common/index.ts';
import { PROMPT_SORTS } from './list.ts';

/** Response schemas of prompts (see src/domain/common/responses.ts). */

const promptFields = {
  id,
  text: z.string(),
  categories: z.array(z.string()),
  intent: z.enum(['informational', 'navigational', 'commercial', 'transactional']),
  funnel: z.enum(['awareness', 'consideration', 'decision']),
  status: z.enum(['draft', 'active', 'paused']),
  personaId: id.nullable().describe('Variant A: the persona it is asked as'),
  raw: z.boolean().describe('Imported as a search query, not yet rewritten as a question'),
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const prompt = named('Prompt', 'A prompt: a question put to the assistants', z.object(promptFields));

export const promptResponse = named('PromptResponse', 'The prompt', z.object({ prompt }));

export const latestVerdicts = named(
  'LatestVerdicts',
  'Each assistant’s latest verdict; null: never asked',
  byProvider(verdict.nullable()),
);

export const stabilityChange = named(
  'StabilityChange',
  'The latest period with data against the earlier ones of the window: answers naming or citing the brand and answers that did not fail, and whether the move is larger than noise (Fisher’s exact test, p < 0.05)',
  z.object({
    named: count,
    answered: count,
    earlierNamed: count,
    earlierAnswered: count,
    pValue: z.number(),
    real: z.boolean(),
  }),
);

export const sampleCounts = named(
  'SampleCounts',
  'One assistant’s latest scan of a prompt: samples asked, answered (did not fail), and naming or citing the brand ("2 of 3")',
  z.object({ samples: count, answered: count, named: count }),
);

export const consistency = named(
  'Consistency',
  'How the assistants’ latest samples of a prompt named the brand: summed, the share naming it (percent), and per assistant',
  z.object({
    named: count,
    answered: count,
    share: z.number().nullable(),
    providers: byProvider(sampleCounts.nullable()),
  }),
);

const square = z.object({ start: day, verdict: verdict.nullable() });

const results = {
  latest: latestVerdicts,
  stability: stability.nullable().describe('held, volatile or lost over the window; null when never named'),
  stabilityChange: stabilityChange.nullable(),
  consistency: consistency.nullable(),
};

export const promptListItem = named(
  'PromptListItem',
  'A prompt with its results: latest verdict per assistant, one history square per period of the window (oldest first), stability',
  z.object({ ...promptFields, ...results, history: z.array(square) }),
);

export const promptList = named(
  'PromptList',
  'A page of prompts, with the sort used and the window the history squares cover (period, start: the last period’s start)',
  z.object({
    prompts: z.array(promptListItem),
    ...paging,
    sort: z.enum(PROMPT_SORTS),
    dir: z.enum(['asc', 'desc']),
    period: periodKind,
    start: day,
  }),
);

const latestAnswer = named(
  'LatestAnswer',
  'An assistant’s latest answer to a prompt, and how that scan’s samples of it named the brand',
  z.object({
    answerId: id,
    askedAt: dateTime,
    verdict,
    brandRank: z.int().positive().nullable(),
    samples: count,
    answered: count,
    named: count,
  }),
);

export const promptDetailResponse = named(
  'PromptDetail',
  'One prompt with its results: week-by-week history, the window’s squares, each assistant’s latest answer, and every answer over time (newest first, paged)',
  z.object({
    prompt: z.object({
      ...promptFields,
      ...results,
      history: z
        .array(z.object({ start: day, verdict: verdict.nullable(), providers: byProvider(verdict.nullable()) }))
        .describe('Every week from the first answer to the last'),
    }),
    period: periodKind,
    start: day,
    squares: z.array(square),
    latestAnswers: byProvider(latestAnswer.nullable()),
    results: z.array(
      z.object({
        id,
        scanId: id,
        provider,
        sample: z.int().positive(),
        model: z.string(),
        askedAt: dateTime,
        verdict,
        mentioned: z.boolean(),
        ownCited: z.boolean(),
        brandRank: z.int().positive().nullable(),
        tone: tone.nullable(),
        error: z.string().nullable(),
      }),
    ),
    ...paging,
  }),
);

export const promptAnswerResponse = named(
  'PromptAnswer',
  'One answer of a prompt word for word (null when it has none), and each assistant’s latest answer to pick from',
  z.object({
    prompt: z.object({ id, text: z.string() }),
    engine: provider.nullable(),
    answer: answer.nullable(),
    engines: z.array(z.object({ provider, answerId: id, askedAt: dateTime, verdict })),
  }),
);

export const promptBulkResult = named(
  'PromptBulkResult',
  'What one bulk action did',
  z.object({
    action: oneOf(['delete', 'status', 'personaId', 'category']),
    updated: count,
    deleted: count,
    categoriesCreated: z.array(z.string()),
  }),
);

export const promptImportResult = named(
  'PromptImportResult',
  'Rows read and what became of them; errors name the file line (the header is line 1); categories lists the categories created',
  z.object({
    rows: count,
    created: count,
    updated: count,
    skipped: count,
    categories: z.array(z.string()),
    errors: z.array(z.object({ line: z.int().positive(), reason: z.string() })),
    errorsOmitted: count,
    dryRun: z.boolean(),
  }),
);

const rewritesLeftToday = count.describe(
  'Query rewrites the workspace may still ask for today (UTC), across its sites',
);

export const pendingRewritesResponse = named(
  'PendingRewrites',
  'Imported prompts still worded as search queries, and the workspace’s rewrites left today',
  z.object({ pending: count, rewritesLeftToday }),
);

export const rewriteResponse = named(
  'RewriteResponse',
  'The rewrite queued (or already queued), or nothing to do; prompts past the workspace’s rewrites for today stay raw',
  z.object({
    rewrite: z.object({
      state: oneOf(['queued', 'nothing to do']),
      pending: count,
      jobId: z.string().nullable(),
      rewritesLeftToday,
    }),
  }),
);
