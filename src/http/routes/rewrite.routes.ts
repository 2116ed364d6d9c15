import { requestRewrite } from '../../domain/prompts/rewrite.ts';
import type { SiteRow } from '../../db/schema.ts';
import { defineRoute, json, type Route } from '../route.ts';

export const rewriteRoutes: Route[] = [
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/rewrite',
    summary: 'Rewrite imported search queries as full questions through an assistant; not charged; needs a balance above zero; 10 calls an hour',
    access: 'admin',
    handler: async ({ ctx, site }) => json(await requestRewrite(ctx, site as SiteRow)),
  }),
];
