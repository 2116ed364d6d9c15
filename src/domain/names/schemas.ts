import { z } from 'zod';
import { booleanField, queryText, text, pagingShape } from '../common/index.ts';

/** Request schemas of names and corrections (CONTRACT.md "Names and corrections"). */

/** Most exclusion phrases a site or a competitor has, and their length. */
export const EXCLUDE_PHRASES_MAX = 50;
export const EXCLUDE_PHRASE_CHARS = 100;

/** `excludePhrases` of a site or a competitor: replaces the list; phrases in which the names never count. */
export const excludePhrasesField = z
  .array(text('an exclusion phrase', EXCLUDE_PHRASE_CHARS))
  .max(EXCLUDE_PHRASES_MAX, `at most ${EXCLUDE_PHRASES_MAX} exclusion phrases`)
  .optional();

/** `dryRun: true` in a change of names: nothing is saved, the answer is a preview of what would move. */
export const dryRunField = booleanField.optional();

export const mentionFeedbackSchema = z.object({
  answerId: z
    .number({ error: 'answerId must be an answer id' })
    .int('answerId must be an answer id')
    .positive('answerId must be an answer id')
    .max(Number.MAX_SAFE_INTEGER, 'answerId must be an answer id'),
  name: text('name', 200),
  mentioned: booleanField,
});

export const mentionFeedbackListQuerySchema = z.object({
  name: queryText('name', 200),
  ...pagingShape(50),
});

/** Names a page of GET /projects/:id/names holds unless asked: the most a page may hold (a site may track 1,601 names). */
export const NAMES_PAGE_DEFAULT = 200;
export const nameListQuerySchema = z.object(pagingShape(NAMES_PAGE_DEFAULT));

export type MentionFeedbackInput = z.output<typeof mentionFeedbackSchema>;
export type MentionFeedbackListQuery = z.output<typeof mentionFeedbackListQuerySchema>;
export type NameListQuery = z.output<typeof nameListQuerySchema>;
