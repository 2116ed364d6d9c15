import type { Config } from '../../config.ts';
import type { SiteRow } from '../../db/schema.ts';
import { categoryCreateSchema, categoryMergeSchema, createCategory, listCategories, mergeCategories } from '../../domain/categories/categories.ts';
import { EXPORT_COLUMNS, exportPromptsCsv } from '../../domain/prompts/export.ts';
import { importPrompts } from '../../domain/prompts/import.ts';
import { listPrompts, promptExportQuerySchema, promptListQuerySchema } from '../../domain/prompts/list.ts';
import { promptBulkSchema, promptCreateSchema, promptImportSchema, promptUpdateSchema } from '../../domain/prompts/schemas.ts';
import { bulkPrompts, createPrompt, pendingRewrites, updatePrompt } from '../../domain/prompts/prompts.ts';
import { ValidationError } from '../../errors.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** `personaId` is a variant A field: a deployment serving B alone refuses it like any invalid field. */
function refuseUnservedPersona(config: Config, body: { personaId?: unknown }): void {
  if (body.personaId !== undefined && !config.apiVariant.includes('A')) {
    throw new ValidationError({ personaId: 'buyer personas are not served by this deployment' });
  }
}

export const promptRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts',
    summary:
      'Prompts with filters (q, category, status, intent, verdict, competitor, stability, scanned), sort (created, text, category, rank, scanned) and pages; each with its latest verdict per assistant, history squares over the ten periods ending at start (period, start) and stability',
    access: 'viewer',
    query: promptListQuerySchema,
    responds: '{prompts: [{...prompt, latest, history: [{start, verdict}], stability}], total, page, perPage, sort, dir, period, start}',
    handler: async ({ ctx, site, query }) => json(await listPrompts(ctx.db, site as SiteRow, query, ctx.clock.now())),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/export.csv',
    summary: 'The prompt list (same filters, sort and period parameters, no pages) as a CSV file',
    access: 'viewer',
    query: promptExportQuerySchema,
    responds: `text/csv with columns ${EXPORT_COLUMNS.join(', ')}`,
    handler: async ({ ctx, site, query }) => {
      const { stream, filename } = await exportPromptsCsv(ctx.db, site as SiteRow, query, ctx.clock.now());
      return { raw: stream, contentType: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': `attachment; filename="${filename}"`, 'Cache-Control': 'no-store' } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts',
    summary: 'Add one prompt (409 when its text is already tracked; 400 past the prompts-per-site limit)',
    access: 'member',
    body: promptCreateSchema,
    example: { text: 'Which help desk software works best for a small team?', categories: ['Help desk'], intent: 'commercial', funnel: 'consideration' },
    responds: '{prompt}',
    handler: async ({ ctx, site, principal, body }) => {
      refuseUnservedPersona(ctx.config, body);
      return json(await createPrompt(ctx.db, site as SiteRow, { userId: principal.user.id }, body));
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/prompts/:promptId',
    summary: 'Edit one prompt; only fields sent change, categories replaces the list, personaId null clears',
    access: 'member',
    body: promptUpdateSchema,
    example: { status: 'paused', categories: ['Help desk', 'Pricing'] },
    responds: '{prompt}',
    handler: async ({ ctx, site, ids, body }) => {
      refuseUnservedPersona(ctx.config, body);
      return json(await updatePrompt(ctx.db, site as SiteRow, ids.promptId as number, body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/bulk',
    summary: 'One action on 1 to 5000 prompts: status, category, personaId, or delete (with their answers)',
    access: 'member',
    body: promptBulkSchema,
    example: { ids: [1, 2, 3], status: 'paused' },
    responds: '{action, updated, deleted, categoriesCreated}',
    handler: async ({ ctx, site, body }) => {
      refuseUnservedPersona(ctx.config, body);
      return json(await bulkPrompts(ctx.db, site as SiteRow, body));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/import',
    summary: 'Import prompts from CSV text (header row; text, category, intent, funnel, status columns)',
    access: 'member',
    body: promptImportSchema,
    example: { contents: 'text,category,intent\n"Which help desk tools integrate with Slack?",Integrations,commercial\nhelp desk pricing,Pricing;Help desk,\n', dryRun: true },
    responds: '{rows, created, updated, skipped, categories, errors: [{line, reason}], errorsOmitted, dryRun}',
    handler: async ({ ctx, site, principal, body }) => json(await importPrompts(ctx.db, site as SiteRow, { userId: principal.user.id }, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/rewrite/pending',
    summary: 'How many imported prompts are still worded as search queries (raw)',
    access: 'viewer',
    responds: '{pending}',
    handler: async ({ ctx, site }) => json(await pendingRewrites(ctx.db, site as SiteRow)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/categories',
    summary: 'Categories with their prompt counts',
    access: 'viewer',
    responds: '{categories: [{id, name, promptCount, createdAt}], total}',
    handler: async ({ ctx, site }) => json(await listCategories(ctx.db, site as SiteRow)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories',
    summary: 'Add an empty category (409 when the name exists, ignoring case)',
    access: 'member',
    body: categoryCreateSchema,
    example: { name: 'Integrations' },
    responds: '{category}',
    handler: async ({ ctx, site, body }) => json(await createCategory(ctx.db, site as SiteRow, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories/merge',
    summary: 'Rename (one name), merge (several, or into an existing name) or remove (empty into) categories',
    access: 'member',
    body: categoryMergeSchema,
    example: { names: ['Integrations'], into: 'Integrations and apps' },
    responds: '{category, removed, prompts}',
    handler: async ({ ctx, site, body }) => json(await mergeCategories(ctx.db, site as SiteRow, body)),
  }),
];
