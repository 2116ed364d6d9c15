import { sql, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import type { Database, SiteRow } from '../db/schema.ts';
import { serializePrompts } from './prompts.ts';
import { CATEGORY_NAME_MAX, hasNoNul, intentSchema, PROMPT_TEXT_MAX, promptStatusSchema } from './prompt-schemas.ts';

/**
 * The prompt list and the filters it shares with the CSV export. Filters
 * that need scan results (verdict, competitor, stability, scanned) and the
 * rank/scanned sorts arrive with reports.
 */

export const PERIODS = ['day', 'week', 'month', 'quarter'] as const;
export type Period = (typeof PERIODS)[number];

const isoDate = z
  .string({ error: 'start must be a date, YYYY-MM-DD' })
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'start must be a date, YYYY-MM-DD')
  .refine((s) => {
    const d = new Date(`${s}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
  }, 'start is not a calendar date');

/** Report period parameters: what one history square stands for. */
export const periodQuerySchema = z.object({
  period: z.enum(PERIODS, { error: `period must be one of ${PERIODS.join(', ')}` }).default('week'),
  start: isoDate.optional(),
});

export const PROMPT_SORTS = ['created', 'text', 'category'] as const;

const optionalText = (label: string, max: number) =>
  z
    .string({ error: `${label} must be given once, as text` })
    .trim()
    .max(max, `${label} must be at most ${max} characters`)
    .refine(hasNoNul, `${label} cannot contain NUL characters`)
    .optional()
    // An empty parameter (`?q=`) filters nothing.
    .transform((v) => (v ? v : undefined));

export const promptFilterSchema = z.object({
  q: optionalText('q', PROMPT_TEXT_MAX),
  category: optionalText('category', CATEGORY_NAME_MAX),
  status: promptStatusSchema.optional(),
  intent: intentSchema.optional(),
  sort: z.enum(PROMPT_SORTS, { error: `sort must be one of ${PROMPT_SORTS.join(', ')}` }).default('created'),
  dir: z.enum(['asc', 'desc'], { error: 'dir must be asc or desc' }).optional(),
});

const perPageMessage = 'perPage must be a whole number from 5 to 200';

export const promptListQuerySchema = promptFilterSchema.extend({
  page: z.coerce.number({ error: 'page must be a whole number from 1' }).int('page must be a whole number from 1').min(1, 'page must be a whole number from 1').max(1_000_000, 'page is too large').default(1),
  perPage: z.coerce.number({ error: perPageMessage }).int(perPageMessage).min(5, perPageMessage).max(200, perPageMessage).default(20),
  ...periodQuerySchema.shape,
});

export type PromptFilters = z.output<typeof promptFilterSchema>;
export type PromptListQuery = z.output<typeof promptListQuerySchema>;

/** First day (YYYY-MM-DD, UTC) of the period that contains `day`; weeks start on Monday. */
export function periodStart(period: Period, day: Date): string {
  const y = day.getUTCFullYear();
  const m = day.getUTCMonth();
  const d = day.getUTCDate();
  let start: Date;
  if (period === 'day') start = new Date(Date.UTC(y, m, d));
  else if (period === 'week') start = new Date(Date.UTC(y, m, d - ((day.getUTCDay() + 6) % 7)));
  else if (period === 'month') start = new Date(Date.UTC(y, m, 1));
  else start = new Date(Date.UTC(y, m - (m % 3), 1));
  return start.toISOString().slice(0, 10);
}

/** Created: newest first; text and category: A to Z. */
export function defaultDir(sort: PromptFilters['sort']): 'asc' | 'desc' {
  return sort === 'created' ? 'desc' : 'asc';
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The site's prompts narrowed by the filters, as `p`. */
export function filteredPrompts(db: Db, siteId: number, f: PromptFilters) {
  let q = db.selectFrom('prompts as p').where('p.siteId', '=', siteId);
  // ILIKE with a leading wildcard is served by the trigram index on text.
  if (f.q) q = q.where('p.text', 'ilike', `%${escapeLike(f.q)}%`);
  if (f.status) q = q.where('p.status', '=', f.status);
  if (f.intent) q = q.where('p.intent', '=', f.intent);
  const category = f.category;
  if (category) {
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('promptCategories as pc')
          .innerJoin('categories as c', 'c.id', 'pc.categoryId')
          .select(sql`1`.as('one'))
          .whereRef('pc.promptId', '=', 'p.id')
          .where(sql`lower(c.name)`, '=', sql`lower(${category})`),
      ),
    );
  }
  return q;
}

/** Orders by the sort key, then id, so pages never overlap; uncategorised prompts come last either way. */
export function orderedPrompts<O>(q: SelectQueryBuilder<Database & { p: Database['prompts'] }, 'p', O>, sort: PromptFilters['sort'], dir: 'asc' | 'desc') {
  if (sort === 'text') return q.orderBy(sql`lower(p.text)`, dir).orderBy('p.id', dir);
  if (sort === 'category') {
    const firstCategory = sql`(SELECT min(lower(c.name)) FROM prompt_categories pc JOIN categories c ON c.id = pc.category_id WHERE pc.prompt_id = p.id)`;
    return q.orderBy(firstCategory, (ob) => (dir === 'asc' ? ob.asc() : ob.desc()).nullsLast()).orderBy('p.id', dir);
  }
  return q.orderBy('p.createdAt', dir).orderBy('p.id', dir);
}

export async function listPrompts(db: Db, site: SiteRow, query: PromptListQuery, now: Date) {
  const base = filteredPrompts(db, site.id, query);
  const dir = query.dir ?? defaultDir(query.sort);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    orderedPrompts(base.selectAll('p'), query.sort, dir)
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  const start = periodStart(query.period, query.start ? new Date(`${query.start}T00:00:00Z`) : now);
  return {
    prompts: await serializePrompts(db, rows),
    total: Number(count.n),
    page: query.page,
    perPage: query.perPage,
    sort: query.sort,
    dir,
    period: query.period,
    start,
  };
}
