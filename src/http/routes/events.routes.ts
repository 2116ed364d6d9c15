import type { SiteRow } from '../../db/schema.ts';
import { createEvent, deleteEvent, listEvents, siteEventCreateSchema, siteEventListQuerySchema } from '../../domain/sites/events.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Site events exist in variant B only; a deployment serving A alone answers 404 for these paths. */
export const eventRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/events',
    summary: 'The site’s events, oldest first; `from` and `to` (YYYY-MM-DD, inclusive) narrow them',
    access: 'viewer',
    variant: 'B',
    query: siteEventListQuerySchema,
    responds: '{events: [{id, title, date, type, note, createdAt}], total, page, perPage}',
    handler: async ({ ctx, site, query }) => json(await listEvents(ctx.db, site as SiteRow, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/events',
    summary: 'Add an event drawn on trend charts: title (up to 120), date, type (site, model, campaign, other), optional note (up to 1000)',
    access: 'member',
    variant: 'B',
    body: siteEventCreateSchema,
    example: { title: 'Pricing page relaunch', date: '2026-11-02', type: 'site', note: 'New comparison table' },
    responds: '{event}',
    handler: async ({ ctx, site, body }) => json(await createEvent(ctx.db, site as SiteRow, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/events/:eventId',
    summary: 'Remove an event',
    access: 'member',
    variant: 'B',
    responds: '{deleted, event}',
    handler: async ({ ctx, site, ids }) => json(await deleteEvent(ctx.db, site as SiteRow, ids.eventId as number)),
  }),
];
