import type { SiteRow } from '../../db/schema.ts';
import { promptAnswer, promptAnswerQuerySchema, promptDetail, promptDetailQuerySchema } from '../../domain/prompts/detail.ts';
import { defineRoute, json, type Route } from '../route.ts';

const site = (s: SiteRow | null) => s as SiteRow;

/** One prompt's scan results and one answer word for word (the prompt list and edits are in prompts.routes.ts). */
export const promptViewRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/:promptId',
    summary: 'One prompt: latest verdict per assistant, week-by-week history, stability over the period parameters, every answer over time as results (newest first, page, perPage)',
    access: 'viewer',
    query: promptDetailQuerySchema,
    responds: '{prompt: {..., latest, history, stability}, period, start, squares, latestAnswers, results, total, page, perPage}',
    handler: async ({ ctx, site: s, ids, query }) => json(await promptDetail(ctx, site(s), ids.promptId as number, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/:promptId/answer',
    summary: 'One answer word for word with brands named, sources, web searches and persona context: engine (an assistant’s latest) or r (a past answer id from results)',
    access: 'viewer',
    query: promptAnswerQuerySchema,
    responds: '{prompt, engine, answer | null, engines}',
    handler: async ({ ctx, site: s, ids, query }) => json(await promptAnswer(ctx, site(s), ids.promptId as number, query)),
  }),
];
