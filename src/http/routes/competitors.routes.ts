import { z } from 'zod';
import { changeCompetitor, trackCompetitor, untrackCompetitor } from '../../domain/competitors/competitors.ts';
import type { SiteRow } from '../../db/schema.ts';
import { defineRoute, json, type Route } from '../route.ts';
import { trimmed } from '../schemas.ts';

const fields = {
  domain: z.string().trim().max(2000).nullish(),
  aliases: z.array(trimmed('an alias', 200)).max(30, 'at most 30 aliases').optional(),
  color: z
    .string()
    .regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'must be a hex colour such as #1a73e8')
    .nullish(),
  logo: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).nullish(),
};
const trackBody = z.object({ name: trimmed('name', 200), ...fields });
const changeBody = z.object({ name: trimmed('name', 200).optional(), ...fields });

export const competitorRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/competitors',
    summary: 'Track a competitor; stored answers are re-read (`reanalysis`)',
    access: 'member',
    body: trackBody,
    example: { name: 'Globex', domain: 'globex.com', aliases: ['Globex Corp'], color: '#1a73e8' },
    handler: async ({ ctx, site, body }) => json(await trackCompetitor(ctx, (site as SiteRow).id, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/competitors/:competitorId',
    summary: 'Change a competitor: only fields sent change; aliases replaces the list; domain null removes it',
    access: 'member',
    body: changeBody,
    example: { aliases: ['Globex Corporation'] },
    handler: async ({ ctx, site, ids, body }) => json(await changeCompetitor(ctx, (site as SiteRow).id, ids.competitorId as number, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/competitors/:competitorId',
    summary: 'Stop tracking a competitor; stored answers are kept and re-read without it',
    access: 'member',
    handler: async ({ ctx, site, ids }) => json(await untrackCompetitor(ctx, (site as SiteRow).id, ids.competitorId as number)),
  }),
];
