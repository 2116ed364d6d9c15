import { z } from 'zod';
import type { Funnel, Intent, PromptStatus } from '../../db/schema.ts';
import { hasNoNul, idSchema, text } from '../common/index.ts';
import { categoryNameSchema } from '../categories/index.ts';

/**
 * Request schemas of prompts, one place for every field's rule and message.
 * Routes validate with these and domain functions take their output types,
 * so a prompt's input shape is written once.
 */

export const INTENTS = [
  'informational',
  'navigational',
  'commercial',
  'transactional',
] as const satisfies readonly Intent[];
export const FUNNELS = ['awareness', 'consideration', 'decision'] as const satisfies readonly Funnel[];
export const PROMPT_STATUSES = ['draft', 'active', 'paused'] as const satisfies readonly PromptStatus[];

// Fails to compile when schema.ts gains a value these lists do not name.
const _everyValueListed: [
  Exclude<Intent, (typeof INTENTS)[number]>,
  Exclude<Funnel, (typeof FUNNELS)[number]>,
  Exclude<PromptStatus, (typeof PROMPT_STATUSES)[number]>,
] extends [never, never, never]
  ? true
  : never = true;

export const PROMPT_TEXT_MIN = 3;
export const PROMPT_TEXT_MAX = 500;
export const CATEGORIES_PER_PROMPT = 8;
export const BULK_IDS_MAX = 5000;
export const IMPORT_CHARS_MAX = 2_000_000;

const oneOf = <T extends readonly [string, ...string[]]>(label: string, values: T) =>
  z.enum(values, { error: `${label} must be one of ${values.join(', ')}` });

export const intentSchema = oneOf('intent', INTENTS);
export const funnelSchema = oneOf('funnel', FUNNELS);
export const promptStatusSchema = oneOf('status', PROMPT_STATUSES);

export const promptTextSchema = text('text', PROMPT_TEXT_MAX, PROMPT_TEXT_MIN, {
  length: `text needs ${PROMPT_TEXT_MIN} to ${PROMPT_TEXT_MAX} characters`,
});

const categoryListSchema = z
  .array(categoryNameSchema, { error: 'categories must be a list of names' })
  .max(CATEGORIES_PER_PROMPT, `at most ${CATEGORIES_PER_PROMPT} categories per prompt`);

const personaIdSchema = idSchema('personaId').nullable();

/** `category` is shorthand for a one-name `categories`; sending both is ambiguous. */
function oneCategoryForm(value: { category?: unknown; categories?: unknown }, ctx: z.RefinementCtx): void {
  if (value.category !== undefined && value.categories !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['category'], message: 'send category or categories, not both' });
  }
}

export const promptCreateSchema = z
  .object({
    text: promptTextSchema,
    category: categoryNameSchema.optional(),
    categories: categoryListSchema.optional(),
    intent: intentSchema.default('informational'),
    funnel: funnelSchema.default('awareness'),
    status: promptStatusSchema.default('active'),
    personaId: personaIdSchema.optional(),
  })
  .superRefine(oneCategoryForm);

export const promptUpdateSchema = z
  .object({
    text: promptTextSchema.optional(),
    category: categoryNameSchema.optional(),
    categories: categoryListSchema.optional(),
    intent: intentSchema.optional(),
    funnel: funnelSchema.optional(),
    status: promptStatusSchema.optional(),
    personaId: personaIdSchema.optional(),
  })
  .superRefine(oneCategoryForm);

const BULK_ACTIONS = ['status', 'category', 'delete', 'personaId'] as const;

export const promptBulkSchema = z
  .object({
    ids: z
      .array(idSchema('an id'), { error: 'ids must be a list of prompt ids' })
      .min(1, 'ids needs at least one prompt id')
      .max(BULK_IDS_MAX, `ids takes at most ${BULK_IDS_MAX} prompt ids`),
    status: promptStatusSchema.optional(),
    /** null removes every category from the prompts. */
    category: categoryNameSchema.nullable().optional(),
    delete: z.literal(true, { error: 'delete must be true' }).optional(),
    personaId: personaIdSchema.optional(),
  })
  .superRefine((value, ctx) => {
    const given = BULK_ACTIONS.filter((a) => value[a] !== undefined);
    if (given.length === 0)
      ctx.addIssue({ code: 'custom', path: [], message: `send one action: ${BULK_ACTIONS.join(', ')}` });
    for (const extra of given.slice(1)) {
      ctx.addIssue({ code: 'custom', path: [extra], message: `one action per call; ${given[0]} is already given` });
    }
  });

export const promptImportSchema = z.object({
  contents: z
    .string({ error: 'contents must be the CSV text as a string' })
    .min(1, 'contents is empty')
    .max(IMPORT_CHARS_MAX, `contents must be at most ${IMPORT_CHARS_MAX.toLocaleString('en-US')} characters`)
    .refine(hasNoNul, 'contents cannot contain NUL characters'),
  status: promptStatusSchema.default('draft'),
  dryRun: z.boolean({ error: 'dryRun must be true or false' }).default(false),
});

export type PromptCreate = z.output<typeof promptCreateSchema>;
export type PromptUpdate = z.output<typeof promptUpdateSchema>;
export type PromptBulk = z.output<typeof promptBulkSchema>;
export type PromptImport = z.output<typeof promptImportSchema>;
