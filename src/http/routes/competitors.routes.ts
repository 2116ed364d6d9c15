import {
  changeCompetitor,
  trackCompetitor,
  untrackCompetitor,
  competitorChangeSchema,
  competitorTrackSchema,
  competitorChangeResult,
  untrackedCompetitor,
} from '../../domain/competitors/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Tracked competitors (src/domain/competitors); their report is in reports.routes.ts. */
export const competitorRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/competitors',
    operationId: 'trackCompetitor',
    tag: 'Competitors',
    summary:
      'Track a competitor; stored answers are re-read (`reanalysis`); `warnings` lists ambiguous names; `dryRun: true` saves nothing and answers what it would change (`preview`)',
    access: 'member',
    body: competitorTrackSchema,
    example: {
      name: 'Globex',
      domain: 'globex.com',
      aliases: ['Globex Corp'],
      excludePhrases: ['Globex mall'],
      color: '#1a73e8',
    },
    responses: { 200: competitorChangeResult, 409: 'A competitor of this name is already tracked' },
    handler: async ({ ctx, site, body }) => json(await trackCompetitor(ctx, site, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/competitors/:competitorId',
    operationId: 'updateCompetitor',
    tag: 'Competitors',
    summary:
      'Change a competitor: only fields sent change; aliases and excludePhrases replace their lists; domain null removes it; `dryRun: true` saves nothing and answers what it would change (`preview`)',
    access: 'member',
    body: competitorChangeSchema,
    example: { aliases: ['Globex Corporation'] },
    responses: { 200: competitorChangeResult, 409: 'Another competitor has this name' },
    handler: async ({ ctx, site, ids, body }) => json(await changeCompetitor(ctx, site, ids.competitorId, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/competitors/:competitorId',
    operationId: 'untrackCompetitor',
    tag: 'Competitors',
    summary: 'Stop tracking a competitor; stored answers are kept and re-read without it',
    access: 'member',
    responses: { 200: untrackedCompetitor },
    handler: async ({ ctx, site, ids }) => json(await untrackCompetitor(ctx, site, ids.competitorId)),
  }),
];
