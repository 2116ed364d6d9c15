import {
  addMentionFeedback,
  listMentionFeedback,
  listNames,
  mentionFeedbackList,
  mentionFeedbackResponse,
  nameList,
  mentionFeedbackListQuerySchema,
  mentionFeedbackSchema,
  nameListQuerySchema,
} from '../../domain/names/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** The names a site tracks, how answers read them, and readers' corrections (src/domain/names). */
export const nameRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/names',
    operationId: 'listNames',
    tag: 'Names',
    mcp: {
      tool: 'list_names',
      lead: 'Check here before trusting counts of a name that is an everyday word: how answers read it, with quotes.',
    },
    summary:
      'Every name in use (name, brand terms, competitors, aliases): ambiguous or not and why, stored answers where it counted and was refused, examples each way, and its precision from corrections (page, perPage)',
    access: 'viewer',
    query: nameListQuerySchema,
    responses: { 200: nameList },
    handler: async ({ ctx, site, query }) => json(await listNames(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/mention-feedback',
    operationId: 'listMentionFeedback',
    tag: 'Names',
    mcp: { tool: 'list_mention_feedback' },
    summary: 'Readers’ corrections, newest first; `name` narrows to one name (page, perPage)',
    access: 'viewer',
    query: mentionFeedbackListQuerySchema,
    responses: { 200: mentionFeedbackList },
    handler: async ({ ctx, site, query }) => json(await listMentionFeedback(ctx, site, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/mention-feedback',
    operationId: 'addMentionFeedback',
    tag: 'Names',
    mcp: {
      tool: 'add_mention_feedback',
      lead: 'Changes the project’s numbers: correct a reading only where the answer’s text shows what the name means.',
    },
    summary:
      'Say whether a name is meant in one stored answer (`mentioned`); the answer is re-read at once with it (reports follow), later re-reads keep it, and it counts toward the name’s precision',
    access: 'member',
    body: mentionFeedbackSchema,
    example: { answerId: 1, name: 'Acme', mentioned: true },
    responses: {
      200: mentionFeedbackResponse,
      409: 'A scan or reanalysis is writing the project’s facts: nothing was saved, try again in a moment',
    },
    handler: async ({ ctx, site, principal, body }) =>
      json(await addMentionFeedback(ctx, site, { userId: principal.user.id, keyId: principal.keyId }, body)),
  }),
];
