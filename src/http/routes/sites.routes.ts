import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../errors.ts';
import { getReanalysis, requestReanalysis } from '../../domain/reanalysis/reanalysis.ts';
import { changeSite, setSchedule, siteWithDetails } from '../../domain/sites/settings.ts';
import type { SiteRow } from '../../db/schema.ts';
import { defineRoute, json, type Route } from '../route.ts';
import { providerKey, scanSettingsBody, trimmed, usdAmount } from '../schemas.ts';

const changeSiteBody = z.object({
  name: trimmed('name', 200).optional(),
  brandTerms: z.array(trimmed('a brand term', 100)).max(50, 'at most 50 brand terms').optional(),
  industry: trimmed('industry', 200).nullish(),
  language: trimmed('language', 100).optional(),
  location: trimmed('location', 100).optional(),
  scanFrequencyDays: z.number({ error: 'must be a whole number of days' }).int('must be a whole number of days').min(1, 'at least 1').max(365, 'at most 365').optional(),
  monthlyCapUsd: usdAmount.nullish(),
  scanSettings: scanSettingsBody.optional(),
  allowedProviders: z
    .array(providerKey)
    .refine((a) => new Set(a).size === a.length, 'lists a provider twice')
    .nullish(),
});

const scheduleBody = z.object({ enabled: z.boolean({ error: 'must be true or false' }), batch: z.boolean({ error: 'must be true or false' }).optional() });

export const siteRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id',
    summary: 'The site, the caller’s role and the number of stored answers',
    access: 'viewer',
    handler: async ({ ctx, site, principal }) => json({ project: await siteWithDetails(ctx, site as SiteRow, principal.role) }),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id',
    summary: 'Change settings; monthlyCapUsd, scanSettings and allowedProviders need admin; a new name or brand terms re-read stored answers',
    access: 'member',
    body: changeSiteBody,
    example: { name: 'Acme', brandTerms: ['Acme Cloud'], location: 'Germany', scanFrequencyDays: 7 },
    handler: async ({ ctx, site, principal, body }) => {
      const s = site as SiteRow;
      if (body.scanSettings?.category) {
        const found = await ctx.db
          .selectFrom('categories')
          .select('id')
          .where('siteId', '=', s.id)
          .where((eb) => eb(eb.fn('lower', ['name']), '=', (body.scanSettings?.category ?? '').toLowerCase()))
          .executeTakeFirst();
        if (!found) throw new ValidationError({ 'scanSettings.category': 'no such category in this project' });
      }
      return json(await changeSite(ctx, s, principal.role, body));
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/schedule',
    summary: 'Switch scheduled scans on or off (variant B: batch pricing for them)',
    access: 'admin',
    body: scheduleBody,
    example: { enabled: true },
    handler: async ({ ctx, site, principal, body }) => {
      if (body.batch !== undefined && !ctx.config.apiVariant.includes('B')) throw new ValidationError({ batch: 'batch is not available on this deployment' });
      return json(await setSchedule(ctx, site as SiteRow, principal.role, body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/reanalyse',
    summary: 'Re-read every stored answer with the current names and competitors; calls no assistant',
    access: 'member',
    handler: async ({ ctx, site }) => json({ reanalysis: await requestReanalysis(ctx, (site as SiteRow).id, 'requested') }),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/reanalyses/:reanalysisId',
    summary: 'State of one reanalysis: queued, running, done (answers re-read, verdicts changed) or failed',
    access: 'viewer',
    handler: async ({ ctx, site, ids }) => {
      const id = ids.reanalysisId;
      if (id === undefined) throw new NotFoundError();
      return json({ reanalysis: await getReanalysis(ctx, (site as SiteRow).id, id) });
    },
  }),
];
