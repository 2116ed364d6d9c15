import { getReanalysis, requestReanalysis, reanalysisResponse } from '../../domain/reanalysis/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Re-reading stored answers with the site's current names (src/domain/reanalysis). */
export const reanalysisRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/reanalyse',
    operationId: 'startReanalysis',
    tag: 'Reanalysis',
    summary: 'Re-read every stored answer with the current names and competitors; calls no assistant',
    access: 'member',
    responses: { 200: reanalysisResponse },
    handler: async ({ ctx, site }) => json({ reanalysis: await requestReanalysis(ctx, site, 'requested') }),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/reanalyses/:reanalysisId',
    operationId: 'getReanalysis',
    tag: 'Reanalysis',
    mcp: { tool: 'get_reanalysis' },
    summary: 'State of one reanalysis: queued, running, done (answers re-read, verdicts changed) or failed',
    access: 'viewer',
    responses: { 200: reanalysisResponse },
    handler: async ({ ctx, site, ids }) => json({ reanalysis: await getReanalysis(ctx, site, ids.reanalysisId) }),
  }),
];
