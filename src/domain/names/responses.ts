import { z } from 'zod';
import { answer } from '../facts/index.ts';
import { count, dateTime, id, named, paging, percent, provider, verdict } from '../common/index.ts';

/** Response schemas of names, previews and corrections (see src/domain/common/responses.ts). */

export const NAME_FIELDS = ['name', 'brandTerms', 'competitor', 'alias'] as const;
export const WARNING_FIELDS = ['name', 'brandTerms', 'competitors', 'aliases'] as const;

export const nameWarning = named(
  'NameWarning',
  'A name the request saves that is ambiguous (an everyday word, one or two letters): it counts only where an answer means the brand. Check GET /projects/{id}/names and add excludePhrases or corrections where it is misread.',
  z.object({
    field: z.enum(WARNING_FIELDS).describe('The body field that holds the name'),
    name: z.string(),
    reason: z.string().describe('Why it is ambiguous, e.g. "an everyday English word", "two letters"'),
  }),
);

/** Always present on a create or change that can save names: `[]` when none is ambiguous. */
export const warnings = z
  .array(nameWarning)
  .describe('Ambiguous names this request saves (or would save); empty when none');

const beforeAfter = z.object({ before: count, after: count });

export const namesPreview = named(
  'NamesPreview',
  'What a change of names would do to stored answers: the newest answers (up to 2,000) re-read with the new names and each answer’s corrections, against their current verdicts',
  z.object({
    answersRead: count.describe('Stored answers re-read: the newest, up to 2,000'),
    answersTotal: count.describe('Stored answers of the project'),
    verdicts: z
      .object({ cited: beforeAfter, named: beforeAfter, lost: beforeAfter, missing: beforeAfter, failed: beforeAfter })
      .describe('Per verdict: answers read that have it now, and would have it after'),
    moved: z
      .array(z.object({ from: verdict, to: verdict, count }))
      .describe('Answers whose verdict would change, per change, most first'),
    examples: z
      .array(
        z.object({
          answerId: id,
          promptId: id,
          provider,
          before: verdict,
          after: verdict,
          quote: z.string().nullable().describe('The sentence whose reading changes, or null'),
        }),
      )
      .describe('Up to 10 answers that would move, newest first'),
  }),
);

export const namesDryRun = named(
  'NamesDryRun',
  'dryRun: nothing was saved; what the change would do to the stored answers, and the ambiguous names it would save',
  z.object({ dryRun: z.literal(true), preview: namesPreview, warnings }),
);

export const namePrecision = named(
  'NamePrecision',
  'How often the reading of a name agreed with readers’ corrections: value, its 95% Wilson interval (0 to 100) and the number of corrections; value, low and high are null without corrections',
  z.object({
    value: percent,
    low: percent,
    high: percent,
    corrections: count,
    confirmed: count.describe('Corrections that agreed with the reading'),
    rejected: count.describe('Corrections that overturned it'),
  }),
);

const example = z.object({ answerId: id, quote: z.string() });

export const nameInUse = named(
  'Name',
  'A name the project tracks (its name, a brand term, a competitor or an alias), how stored answers read it, and how often readers agreed',
  z.object({
    name: z.string(),
    field: z.enum(NAME_FIELDS),
    competitorId: id.nullable(),
    ambiguous: z.boolean(),
    reason: z.string().nullable().describe('Why it is ambiguous; null when it is not'),
    countedIn: count.describe('Stored answers where it counted at least once'),
    refusedIn: count.describe('Stored answers where an occurrence was refused at least once'),
    examples: z
      .object({ counted: z.array(example), refused: z.array(example) })
      .describe('Up to 3 of each, newest first'),
    precision: namePrecision,
  }),
);

export const nameList = named(
  'NameList',
  'A page of the names in use (the project’s name, brand terms, then each competitor and its aliases) with how each is read',
  z.object({
    names: z.array(nameInUse),
    unread: count.describe(
      'Stored answers whose facts predate name readings (POST /projects/{id}/reanalyse reads them)',
    ),
    ...paging,
  }),
);

export const mentionFeedback = named(
  'MentionFeedback',
  'A reader’s correction: whether a name is meant in an answer, and whether the reading had agreed',
  z.object({
    id,
    answerId: id,
    name: z.string(),
    mentioned: z.boolean(),
    readingAgreed: z.boolean().describe('Whether the reading, without this correction, said the same'),
    userId: id.nullable().describe('Who sent it (the key’s person)'),
    keyId: id.nullable(),
    createdAt: dateTime,
  }),
);

export const mentionFeedbackResponse = named(
  'MentionFeedbackResponse',
  'The correction saved and the answer re-read with it',
  z.object({ feedback: mentionFeedback, answer }),
);

export const mentionFeedbackList = named(
  'MentionFeedbackList',
  'A page of the project’s corrections, newest first',
  z.object({ feedback: z.array(mentionFeedback), ...paging }),
);
