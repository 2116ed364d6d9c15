import { createEvent, deleteEvent, listEvents, siteEventCreateSchema, siteEventListQuerySchema } from '../../domain/sites/events.ts';
import { PROJECT_PAGE_DEFAULT, projectListQuerySchema, siteChangeSchema, siteCreateSchema, scheduleSchema } from '../../domain/sites/schemas.ts';
import { changeSite, setSchedule, siteWithDetails } from '../../domain/sites/settings.ts';
import { addProject, listSitePage } from '../../domain/sites/sites.ts';
import { defineRoute, json, type Route } from '../route.ts';
import { createdProject, deletedEvent, eventList, eventResponse, projectChangeResult, projectList, projectResponse } from '../../domain/sites/responses.ts';

/** Sites (projects), their settings and schedule, and their events (src/domain/sites). */
export const siteRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/projects',
    summary: `The workspace’s sites, oldest first (page, perPage: 5 to 200, default ${PROJECT_PAGE_DEFAULT})`,
    access: 'viewer',
    query: projectListQuerySchema,
    responses: { 200: projectList },
    handler: async ({ ctx, principal, query }) => json(await listSitePage(ctx, principal.org.id, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/projects',
    summary: 'Add a site',
    access: 'admin',
    body: siteCreateSchema,
    example: { name: 'Acme', url: 'https://www.acme.com/', brandTerms: ['Acme Cloud'], excludePhrases: ['Acme Street'], competitors: [{ name: 'Globex', domain: 'globex.com' }] },
    responses: { 200: createdProject, 400: 'Not a domain, or the workspace’s site limit is reached', 409: 'The domain is already a project of this workspace' },
    handler: async ({ ctx, principal, body }) => json(await addProject(ctx, { orgId: principal.org.id, userId: principal.user.id }, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id',
    summary: 'The site, the caller’s role and the number of stored answers',
    access: 'viewer',
    responses: { 200: projectResponse },
    handler: async ({ ctx, site, principal }) => json({ project: await siteWithDetails(ctx, site, principal.role) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id',
    summary:
      'Change settings; monthlyCapUsd, scanSettings and allowedProviders need admin; a new name, brand terms or excludePhrases re-read stored answers; `dryRun: true` saves nothing and answers what the names would change (`preview`)',
    access: 'member',
    body: siteChangeSchema,
    example: { name: 'Acme', brandTerms: ['Acme Cloud'], location: 'Germany', scanFrequencyDays: 7 },
    responses: { 200: projectChangeResult, 403: 'The key’s access is below member, or below admin for monthlyCapUsd, scanSettings or allowedProviders' },
    handler: async ({ ctx, site, principal, body }) => json(await changeSite(ctx, site, principal.role, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/schedule',
    summary: 'Switch scheduled scans on or off (variant B: batch pricing for them)',
    access: 'admin',
    body: scheduleSchema,
    variantFields: { batch: 'B' },
    example: { enabled: true },
    responses: { 200: projectResponse },
    handler: async ({ ctx, site, principal, body }) => json(await setSchedule(ctx, site, principal.role, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/events',
    summary: 'The site’s events, oldest first; `from` and `to` (YYYY-MM-DD, inclusive) narrow them',
    access: 'viewer',
    variant: 'B',
    query: siteEventListQuerySchema,
    responses: { 200: eventList },
    handler: async ({ ctx, site, query }) => json(await listEvents(ctx, site, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/events',
    summary: 'Add an event drawn on trend charts: title (up to 120), date, type (site, model, campaign, other), optional note (up to 1000)',
    access: 'member',
    variant: 'B',
    body: siteEventCreateSchema,
    example: { title: 'Pricing page relaunch', date: '2026-11-02', type: 'site', note: 'New comparison table' },
    responses: { 200: eventResponse, 400: 'Malformed JSON, or the project has the most events it can have' },
    handler: async ({ ctx, site, body }) => json(await createEvent(ctx, site, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/projects/:id/events/:eventId',
    summary: 'Remove an event',
    access: 'member',
    variant: 'B',
    responses: { 200: deletedEvent },
    handler: async ({ ctx, site, ids }) => json(await deleteEvent(ctx, site, ids.eventId)),
  }),
];
