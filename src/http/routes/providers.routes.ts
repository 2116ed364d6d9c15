import {
  listProviders,
  PROVIDER_PAGE_DEFAULT,
  providerListQuerySchema,
  assistantList,
} from '../../domain/providers/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** The assistants this deployment can ask (src/domain/providers). */
export const providerRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/providers',
    operationId: 'listProviders',
    tag: 'Providers',
    mcp: { tool: 'list_providers' },
    summary: `The six assistants, their models and prices, connected or not (page, perPage: 5 to 200, default ${PROVIDER_PAGE_DEFAULT})`,
    access: 'viewer',
    query: providerListQuerySchema,
    responses: { 200: assistantList },
    handler: ({ ctx, query }) => json(listProviders(ctx, query)),
  }),
];
