import { changeCompetitor, trackCompetitor, untrackCompetitor } from '../../domain/competitors/competitors.ts';
import { competitorChangeSchema, competitorTrackSchema } from '../../domain/competitors/schemas.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Tracked competitors (src/domain/competitors); their report is in reports.routes.ts. */
export const competitorRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/competitors',
    summary: 'Track a competitor; stored answers are re-read (`reanalysis`)',
    access: 'member',
    body: competitorTrackSchema,
    example: { name: 'Globex', domain: 'globex.com', aliases: ['Globex Corp'], color: '#1a73e8' },
    handler: async ({ ctx, site, body }) => json(await trackCompetitor(ctx, site, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/competitors/:competitorId',
    summary: 'Change a competitor: only fields sent change; aliases replaces the list; domain null removes it',
    access: 'member',
    body: competitorChangeSchema,
    example: { aliases: ['Globex Corporation'] },
    handler: async ({ ctx, site, ids, body }) => json(await changeCompetitor(ctx, site, ids.competitorId, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/competitors/:competitorId',
    summary: 'Stop tracking a competitor; stored answers are kept and re-read without it',
    access: 'member',
    handler: async ({ ctx, site, ids }) => json(await untrackCompetitor(ctx, site, ids.competitorId)),
  }),
];
