import { sql, type RawBuilder, type SelectQueryBuilder } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { Database, SiteRow } from '../../db/schema.ts';
import { periodQuerySchema, type Period, queryText, pagingShape } from '../common/index.ts';
import {
  competitorFilter,
  consistencyFilter,
  historyStart,
  promptResultFilterSchema,
  promptResults,
  RESULT_SORTS,
  resultDefaultDir,
  resultSortKey,
  scannedFilter,
  stabilityFilter,
  verdictFilter,
  type ResultSort,
} from './verdicts.ts';
import { serializePrompts } from './prompts.ts';
import { CATEGORY_NAME_MAX } from '../categories/index.ts';
import { intentSchema, PROMPT_TEXT_MAX, promptStatusSchema } from './schemas.ts';

/**
 * The prompt list and the filters and sorts it shares with the CSV export.
 * Result columns, filters and sorts read the prompt rollups
 * (src/domain/prompts/verdicts.ts) over the window of the period parameters.
 */

export const PROMPT_SORTS = ['created', 'text', 'category', ...RESULT_SORTS] as const;
export type PromptSort = (typeof PROMPT_SORTS)[number];

export const promptFilterSchema = z.object({
  q: queryText('q', PROMPT_TEXT_MAX),
  category: queryText('category', CATEGORY_NAME_MAX),
  status: promptStatusSchema.optional(),
  intent: intentSchema.optional(),
  ...promptResultFilterSchema.shape,
  sort: z.enum(PROMPT_SORTS, { error: `sort must be one of ${PROMPT_SORTS.join(', ')}` }).default('created'),
  dir: z.enum(['asc', 'desc'], { error: 'dir must be asc or desc' }).optional(),
});

/** The export's query: the list's filters and sort, and the period parameters whose window decides `stability`. */
export const promptExportQuerySchema = promptFilterSchema.extend(periodQuerySchema.shape);

export const promptListQuerySchema = promptExportQuerySchema.extend(pagingShape(20));

export type PromptFilters = z.output<typeof promptFilterSchema>;
export type PromptExportQuery = z.output<typeof promptExportQuerySchema>;
export type PromptListQuery = z.output<typeof promptListQuerySchema>;

/** The history window: `period` kind, ending with the period starting at `start` (see `historyStart`). */
export interface ResultWindow {
  period: Period;
  start: string;
}

const isResultSort = (sort: PromptSort): sort is ResultSort => (RESULT_SORTS as readonly string[]).includes(sort);

/** Created: newest first; text and category: A to Z; rank: best first; scanned: most recent first. */
export function defaultDir(sort: PromptSort): 'asc' | 'desc' {
  if (isResultSort(sort)) return resultDefaultDir(sort);
  return sort === 'created' ? 'desc' : 'asc';
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The site's prompts narrowed by the filters, as `p`; `stability` is read over `window`. */
export function filteredPrompts(db: Db, siteId: number, f: PromptFilters, window: ResultWindow) {
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
  // Result filters: each an indexed read of the prompt rollups (migration 0700; docs/decisions.md "Prompts").
  if (f.verdict) q = q.where(verdictFilter(siteId, f.verdict));
  if (f.competitor) q = q.where(competitorFilter(siteId, f.competitor));
  if (f.stability) q = q.where(stabilityFilter(siteId, window.period, window.start, f.stability));
  if (f.scanned) q = q.where(scannedFilter(f.scanned));
  if (f.consistency) q = q.where(consistencyFilter(siteId, f.consistency));
  return q;
}

/** Orders by the sort key, then id, so pages never overlap; prompts without a key (no category, never ranked or asked) come last either way. */
export function orderedPrompts<O>(
  q: SelectQueryBuilder<Database & { p: Database['prompts'] }, 'p', O>,
  sort: PromptSort,
  dir: 'asc' | 'desc',
) {
  const nullsLast = (key: RawBuilder<unknown>) =>
    q.orderBy(key, (ob) => (dir === 'asc' ? ob.asc() : ob.desc()).nullsLast()).orderBy('p.id', dir);
  if (sort === 'text') return q.orderBy(sql`lower(p.text)`, dir).orderBy('p.id', dir);
  if (sort === 'category')
    return nullsLast(
      sql`(SELECT min(lower(c.name)) FROM prompt_categories pc JOIN categories c ON c.id = pc.category_id WHERE pc.prompt_id = p.id)`,
    );
  if (isResultSort(sort)) return nullsLast(resultSortKey(sort));
  return q.orderBy('p.createdAt', dir).orderBy('p.id', dir);
}

export async function listPrompts(ctx: AppContext, site: SiteRow, query: PromptListQuery) {
  const { db } = ctx;
  // The window's last period comes first: the stability filter reads over it.
  const start = await historyStart(db, site.id, query.period, query.start, ctx.clock.now());
  const base = filteredPrompts(db, site.id, query, { period: query.period, start });
  const dir = query.dir ?? defaultDir(query.sort);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    orderedPrompts(base.selectAll('p'), query.sort, dir)
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  const ids = rows.map((r) => r.id);
  const [views, results] = await Promise.all([
    serializePrompts(db, rows),
    promptResults(db, site.id, ids, query.period, start),
  ]);
  return {
    // promptResults answers every id asked for.
    prompts: views.flatMap((view) => {
      const r = results.get(view.id);
      return r ? [{ ...view, ...r }] : [];
    }),
    total: Number(count.n),
    page: query.page,
    perPage: query.perPage,
    sort: query.sort,
    dir,
    period: query.period,
    start,
  };
}
