import {
  CATEGORIES_PER_SITE,
  CATEGORY_PAGE_DEFAULT,
  categoryCreateSchema,
  categoryListQuerySchema,
  categoryMergeSchema,
  createCategory,
  listCategories,
  mergeCategories,
  categoryList,
  categoryMerge,
  categoryResponse,
} from '../../domain/categories/index.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Prompt categories (src/domain/categories). */
export const categoryRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/categories',
    operationId: 'listCategories',
    tag: 'Categories',
    mcp: { tool: 'list_categories' },
    summary: `Categories with their prompt counts, by name (page, perPage: 5 to 200, default ${CATEGORY_PAGE_DEFAULT})`,
    access: 'viewer',
    query: categoryListQuerySchema,
    responses: { 200: categoryList },
    handler: async ({ ctx, site, query }) => json(await listCategories(ctx, site, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories',
    operationId: 'createCategory',
    tag: 'Categories',
    summary: `Add an empty category (409 when the name exists, ignoring case); up to ${CATEGORIES_PER_SITE} per project, however they are made`,
    access: 'member',
    body: categoryCreateSchema,
    example: { name: 'Integrations' },
    responses: {
      200: categoryResponse,
      400: `Malformed JSON, or the project has ${CATEGORIES_PER_SITE} categories`,
      409: 'A category of this name exists (compared ignoring case)',
    },
    handler: async ({ ctx, site, body }) => json(await createCategory(ctx, site, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories/merge',
    operationId: 'mergeCategories',
    tag: 'Categories',
    summary: 'Rename (one name), merge (several, or into an existing name) or remove (empty into) categories',
    access: 'member',
    body: categoryMergeSchema,
    example: { names: ['Integrations'], into: 'Integrations and apps' },
    responses: { 200: categoryMerge },
    handler: async ({ ctx, site, body }) => json(await mergeCategories(ctx, site, body)),
  }),
];
