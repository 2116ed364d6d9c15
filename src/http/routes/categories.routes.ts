import { categoryCreateSchema, categoryMergeSchema, createCategory, listCategories, mergeCategories } from '../../domain/categories/categories.ts';
import { defineRoute, json, type Route } from '../route.ts';

/** Prompt categories (src/domain/categories). */
export const categoryRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/projects/:id/categories',
    summary: 'Categories with their prompt counts',
    access: 'viewer',
    responds: '{categories: [{id, name, promptCount, createdAt}], total}',
    handler: async ({ ctx, site }) => json(await listCategories(ctx, site)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories',
    summary: 'Add an empty category (409 when the name exists, ignoring case)',
    access: 'member',
    body: categoryCreateSchema,
    example: { name: 'Integrations' },
    responds: '{category}',
    handler: async ({ ctx, site, body }) => json(await createCategory(ctx, site, body)),
  }),
  defineRoute({
    method: 'POST',
    path: '/projects/:id/categories/merge',
    summary: 'Rename (one name), merge (several, or into an existing name) or remove (empty into) categories',
    access: 'member',
    body: categoryMergeSchema,
    example: { names: ['Integrations'], into: 'Integrations and apps' },
    responds: '{category, removed, prompts}',
    handler: async ({ ctx, site, body }) => json(await mergeCategories(ctx, site, body)),
  }),
];
