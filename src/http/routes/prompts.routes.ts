import { promptAnswer, promptAnswerQuerySchema, promptDetail, promptDetailQuerySchema } from '../../domain/prompts/detail.ts';
import { EXPORT_COLUMNS, exportPromptsCsv } from '../../domain/prompts/export.ts';
import { importPrompts } from '../../domain/prompts/import.ts';
import { listPrompts, promptExportQuerySchema, promptListQuerySchema } from '../../domain/prompts/list.ts';
import { promptBulkSchema, promptCreateSchema, promptImportSchema, promptUpdateSchema } from '../../domain/prompts/schemas.ts';
import { bulkPrompts, createPrompt, updatePrompt } from '../../domain/prompts/prompts.ts';
import { pendingRewrites, requestRewrite } from '../../domain/prompts/rewrite.ts';
import { defineRoute, json, type Route } from '../route.ts';
import {
  pendingRewrites as pendingRewritesResponse,
  promptAnswer as promptAnswerResponse,
  promptBulkResult,
  promptDetail as promptDetailResponse,
  promptImportResult,
  promptList,
  promptResponse,
  rewriteResponse,
} from '../../domain/prompts/responses.ts';

/** Prompts: the list and its CSV, edits, import, one prompt's results and answers, rewriting (src/domain/prompts). */
export const promptRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts',
    operationId: 'listPrompts',
    tag: 'Prompts',
    mcp: { tool: 'list_prompts' },
    summary:
      'Prompts with filters (q, category, status, intent, verdict, competitor, stability, scanned), sort (created, text, category, rank, scanned) and pages; each with its latest verdict per assistant, history squares over the ten periods ending at start (period, start) and stability',
    access: 'viewer',
    query: promptListQuerySchema,
    responses: { 200: promptList },
    handler: async ({ ctx, site, query }) => json(await listPrompts(ctx, site, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/export.csv',
    operationId: 'exportPrompts',
    tag: 'Prompts',
    mcp: { none: 'the rows of list_prompts, as a CSV file' },
    summary: 'The prompt list (same filters, sort and period parameters, no pages) as a CSV file',
    access: 'viewer',
    query: promptExportQuerySchema,
    responses: { 200: { contentType: 'text/csv', description: `CSV file (Content-Disposition: attachment) with a header row: ${EXPORT_COLUMNS.join(', ')}` } },
    handler: async ({ ctx, site, query }) => {
      const { stream, filename } = await exportPromptsCsv(ctx, site, query);
      return { raw: stream, contentType: 'text/csv; charset=utf-8', headers: { 'Content-Disposition': `attachment; filename="${filename}"`, 'Cache-Control': 'no-store' } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts',
    operationId: 'createPrompt',
    tag: 'Prompts',
    summary: 'Add one prompt (409 when its text is already tracked; 400 past the prompts-per-site limit)',
    access: 'member',
    body: promptCreateSchema,
    variantFields: { personaId: 'A' },
    example: { text: 'Which help desk software works best for a small team?', categories: ['Help desk'], intent: 'commercial', funnel: 'consideration' },
    responses: {
      200: promptResponse,
      400: 'Malformed JSON, or the prompts-per-site limit is reached, or a new category would pass the categories-per-site limit',
      409: 'A prompt with this text is already tracked (compared ignoring case)',
    },
    handler: async ({ ctx, site, principal, body }) => json(await createPrompt(ctx, site, principal.user.id, body)),
  }),
  defineRoute({
    method: 'PATCH',
    path: '/projects/:id/prompts/:promptId',
    operationId: 'updatePrompt',
    tag: 'Prompts',
    summary: 'Edit one prompt; only fields sent change, categories replaces the list, personaId null clears',
    access: 'member',
    body: promptUpdateSchema,
    variantFields: { personaId: 'A' },
    example: { status: 'paused', categories: ['Help desk', 'Pricing'] },
    responses: {
      200: promptResponse,
      400: 'Malformed JSON, or a new category would pass the categories-per-site limit',
      409: 'Another prompt has this text (compared ignoring case)',
    },
    handler: async ({ ctx, site, ids, body }) => json(await updatePrompt(ctx, site, ids.promptId, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/bulk',
    operationId: 'bulkUpdatePrompts',
    tag: 'Prompts',
    summary: 'One action on 1 to 5000 prompts: status, category, personaId, or delete (with their answers)',
    access: 'member',
    body: promptBulkSchema,
    variantFields: { personaId: 'A' },
    example: { ids: [1, 2, 3], status: 'paused' },
    responses: { 200: promptBulkResult, 400: 'Malformed JSON, or a new category would pass the categories-per-site limit' },
    handler: async ({ ctx, site, body }) => json(await bulkPrompts(ctx, site, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/import',
    operationId: 'importPrompts',
    tag: 'Prompts',
    summary: 'Import prompts from CSV text (header row; text, category, intent, funnel, status columns)',
    access: 'member',
    body: promptImportSchema,
    example: { contents: 'text,category,intent\n"Which help desk tools integrate with Slack?",Integrations,commercial\nhelp desk pricing,Pricing;Help desk,\n', dryRun: true },
    responses: { 200: promptImportResult, 400: 'Malformed JSON, or the categories the file names would pass the categories-per-site limit (nothing is imported)' },
    handler: async ({ ctx, site, principal, body }) => json(await importPrompts(ctx, site, principal.user.id, body)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/rewrite/pending',
    operationId: 'getPendingRewrites',
    tag: 'Prompts',
    mcp: { tool: 'get_pending_rewrites' },
    summary: 'How many imported prompts are still worded as search queries (raw), and the workspace’s rewrites left today',
    access: 'viewer',
    responses: { 200: pendingRewritesResponse },
    handler: async ({ ctx, site }) => json(await pendingRewrites(ctx, site)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/prompts/rewrite',
    operationId: 'rewritePrompts',
    tag: 'Prompts',
    summary:
      'Rewrite imported search queries as full questions through an assistant; not charged; needs a balance above zero; 10 calls an hour per project (joining a queued rewrite counts); one question per prompt from the workspace’s rewrites per day (prompts past them stay raw)',
    access: 'admin',
    responses: {
      200: rewriteResponse,
      400: 'ChatGPT is not connected, or the available balance is zero',
      429: 'More than 10 rewrite calls this hour for this project, or the workspace has no rewrites left today (Retry-After)',
    },
    handler: async ({ ctx, site }) => json(await requestRewrite(ctx, site)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/:promptId',
    operationId: 'getPrompt',
    tag: 'Prompts',
    mcp: { tool: 'get_prompt' },
    summary:
      'One prompt: latest verdict per assistant, week-by-week history, stability over the period parameters, every answer over time as results (newest first, page, perPage)',
    access: 'viewer',
    query: promptDetailQuerySchema,
    responses: { 200: promptDetailResponse },
    handler: async ({ ctx, site, ids, query }) => json(await promptDetail(ctx, site, ids.promptId, query)),
  }),
  defineRoute({
    method: 'GET',
    path: '/projects/:id/prompts/:promptId/answer',
    operationId: 'getPromptAnswer',
    tag: 'Prompts',
    mcp: { tool: 'get_answer' },
    summary: 'One answer word for word with brands named, sources, web searches and persona context: engine (an assistant’s latest) or r (a past answer id from results)',
    access: 'viewer',
    query: promptAnswerQuerySchema,
    responses: { 200: promptAnswerResponse },
    handler: async ({ ctx, site, ids, query }) => json(await promptAnswer(ctx, site, ids.promptId, query)),
  }),
];
