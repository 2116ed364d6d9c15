import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { CategoryRow, SiteRow } from '../../db/schema.ts';
import { BadRequestError, ConflictError, ValidationError } from '../../errors.ts';
import { text, nameKey, uniqueNames, lockSite, pagingShape } from '../common/index.ts';
import { CATEGORY_NAME_MAX, CATEGORY_SEPARATOR_MESSAGE, CATEGORY_SEPARATORS, categoryNameSchema } from './schemas.ts';

/**
 * Categories of a site's prompts. Names are unique per site compared
 * case-insensitively (a unique index on lower(name)); a prompt has up to 8.
 */

/**
 * Categories per site, however they are made (added empty, named by a
 * prompt, an import or a bulk edit): far more than a report can show side
 * by side, and a bound on what one site holds and lists.
 */
export const CATEGORIES_PER_SITE = 500;
/** The first page holds this many unless asked otherwise (the largest page). */
export const CATEGORY_PAGE_DEFAULT = 200;

export const categoryListQuerySchema = z.object(pagingShape(CATEGORY_PAGE_DEFAULT));

export const categoryCreateSchema = z.object({ name: categoryNameSchema });

export const categoryMergeSchema = z.object({
  names: z
    .array(categoryNameSchema, { error: 'names must be a list of category names' })
    .min(1, 'names needs at least one category')
    .max(100, 'names takes at most 100 categories'),
  /** The resulting name; empty or null removes the named categories. */
  into: text('into', CATEGORY_NAME_MAX, 0, {
    type: 'into is required: the resulting name, or an empty string to remove the categories',
  })
    .refine((n) => !CATEGORY_SEPARATORS.test(n), CATEGORY_SEPARATOR_MESSAGE)
    .nullable(),
});

export type CategoryCreate = z.output<typeof categoryCreateSchema>;
export type CategoryMerge = z.output<typeof categoryMergeSchema>;
export type CategoryListQuery = z.output<typeof categoryListQuerySchema>;

/** The names (of `names`) the site has no category of yet, compared ignoring case. */
export async function missingCategories(db: Executor, siteId: number, names: readonly string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const found = await db
    .selectFrom('categories')
    .select('name')
    .where('siteId', '=', siteId)
    .where(sql`lower(name)`, '=', sql`any(${names.map(nameKey)}::text[])`)
    .execute();
  const have = new Set(found.map((c) => nameKey(c.name)));
  return names.filter((n) => !have.has(nameKey(n)));
}

/**
 * Refuses (400) adding `adding` new categories past the per-site limit. Call
 * under lockSite, as every writer that creates categories does, so the count
 * and the insert that follows see the same categories.
 */
export async function assertCategoryRoom(db: Executor, siteId: number, adding: number): Promise<void> {
  if (adding <= 0) return;
  const row = await db
    .selectFrom('categories')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('siteId', '=', siteId)
    .executeTakeFirstOrThrow();
  const used = Number(row.n);
  if (used + adding > CATEGORIES_PER_SITE) {
    throw new BadRequestError(
      `This project has ${used} categories and may have at most ${CATEGORIES_PER_SITE}; this would add ${adding} more. Merge or remove categories first`,
    );
  }
}

function serializeCategory(row: Pick<CategoryRow, 'id' | 'name' | 'createdAt'>, promptCount: number) {
  return { id: row.id, name: row.name, promptCount, createdAt: row.createdAt };
}

/** Category names of each prompt, alphabetical. */
export async function categoryNamesOf(db: Db, promptIds: readonly number[]): Promise<Map<number, string[]>> {
  const map = new Map<number, string[]>();
  if (promptIds.length === 0) return map;
  const rows = await db
    .selectFrom('promptCategories as pc')
    .innerJoin('categories as c', 'c.id', 'pc.categoryId')
    .select(['pc.promptId', 'c.name'])
    .where('pc.promptId', '=', (eb) => eb.fn.any(eb.val(promptIds)))
    .orderBy(sql`lower(c.name)`)
    .execute();
  for (const row of rows) {
    const list = map.get(row.promptId);
    if (list) list.push(row.name);
    else map.set(row.promptId, [row.name]);
  }
  return map;
}

/**
 * Finds or creates categories by name in one statement; safe against a
 * concurrent creator of the same name (ON CONFLICT on the unique index).
 * Existing categories keep their stored spelling. New ones must fit the
 * per-site limit (400 otherwise): call under lockSite.
 */
export async function upsertCategories(
  db: Db,
  siteId: number,
  names: readonly string[],
): Promise<{ byKey: Map<string, number>; created: string[] }> {
  const byKey = new Map<string, number>();
  const created: string[] = [];
  const wanted = uniqueNames(names);
  if (wanted.length === 0) return { byKey, created };
  await assertCategoryRoom(db, siteId, (await missingCategories(db, siteId, wanted)).length);
  const { rows } = await sql<{ id: number; name: string; created: boolean }>`
    INSERT INTO categories (site_id, name)
    SELECT ${siteId}, n FROM unnest(${wanted}::text[]) AS n
    ON CONFLICT (site_id, lower(name)) DO UPDATE SET name = categories.name
    RETURNING id, name, (xmax = 0) AS created`.execute(db);
  for (const row of rows) {
    byKey.set(nameKey(row.name), row.id);
    if (row.created) created.push(row.name);
  }
  return { byKey, created };
}

/** Replaces the categories of the given prompts with `names` (all of them, in a fixed number of statements). */
export async function replaceCategories(
  db: Db,
  siteId: number,
  promptIds: readonly number[],
  names: readonly string[],
): Promise<string[]> {
  if (promptIds.length === 0) return [];
  await db
    .deleteFrom('promptCategories')
    .where('promptId', '=', (eb) => eb.fn.any(eb.val(promptIds)))
    .execute();
  const { byKey, created } = await upsertCategories(db, siteId, names);
  const categoryIds = [...byKey.values()];
  if (categoryIds.length) {
    await sql`
      INSERT INTO prompt_categories (prompt_id, category_id)
      SELECT p, c FROM unnest(${promptIds}::int[]) AS p CROSS JOIN unnest(${categoryIds}::int[]) AS c
      ON CONFLICT DO NOTHING`.execute(db);
  }
  return created;
}

const withCounts = (db: Db, siteId: number) =>
  db
    .selectFrom('categories as c')
    .leftJoin('promptCategories as pc', 'pc.categoryId', 'c.id')
    .select(['c.id', 'c.name', 'c.createdAt', (eb) => eb.fn.count<number>('pc.promptId').as('promptCount')])
    .where('c.siteId', '=', siteId)
    .groupBy('c.id');

/** The site's category of that name (compared ignoring case), or null. */
export async function findCategoryByName(
  db: Executor,
  siteId: number,
  name: string,
): Promise<{ id: number; name: string } | null> {
  const row = await db
    .selectFrom('categories')
    .select(['id', 'name'])
    .where('siteId', '=', siteId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', nameKey(name)))
    .executeTakeFirst();
  return row ?? null;
}

export async function listCategories(ctx: AppContext, site: SiteRow, query: CategoryListQuery) {
  const [count, rows] = await Promise.all([
    ctx.db
      .selectFrom('categories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
    withCounts(ctx.db, site.id)
      .orderBy(sql`lower(c.name)`)
      .orderBy('c.id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return {
    categories: rows.map((r) => serializeCategory(r, Number(r.promptCount))),
    total: Number(count.n),
    page: query.page,
    perPage: query.perPage,
  };
}

const duplicateCategory = (name: string) =>
  new ConflictError(`A category named ${name} already exists (names are compared ignoring case)`, {
    name: 'already exists',
  });

export async function createCategory(ctx: AppContext, site: SiteRow, input: CategoryCreate) {
  try {
    const row = await ctx.db.transaction().execute(async (trx) => {
      // Serialised per site (the lock prompts take), so two adds at once cannot both pass the limit.
      await lockSite(trx, site.id);
      if ((await missingCategories(trx, site.id, [input.name])).length === 0) throw duplicateCategory(input.name);
      await assertCategoryRoom(trx, site.id, 1);
      return trx
        .insertInto('categories')
        .values({ siteId: site.id, name: input.name })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
    return { category: serializeCategory(row, 0) };
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw duplicateCategory(input.name);
    throw err;
  }
}

/**
 * One name and a new `into`: a rename. Several names, or an `into` that is
 * another existing category: the named categories are folded into one
 * (prompts keep one link each) and the others deleted. Empty `into`: the
 * named categories are removed from their prompts and deleted.
 */
export async function mergeCategories(ctx: AppContext, site: SiteRow, input: CategoryMerge) {
  try {
    return await mergeInTransaction(ctx.db, site, input);
  } catch (err) {
    // Another request created the `into` name between the check and the rename.
    if ((err as { code?: string }).code === '23505')
      throw new ConflictError(`A category named ${input.into} was created meanwhile; send the merge again`, {
        into: 'already exists',
      });
    throw err;
  }
}

async function mergeInTransaction(db: Db, site: SiteRow, input: CategoryMerge) {
  const names = uniqueNames(input.names);
  return db.transaction().execute(async (trx) => {
    await lockSite(trx, site.id);
    const found = await trx
      .selectFrom('categories')
      .selectAll()
      .where('siteId', '=', site.id)
      .where(sql`lower(name)`, '=', sql`any(${names.map(nameKey)}::text[])`)
      .execute();
    const byKey = new Map(found.map((c) => [nameKey(c.name), c]));
    const fields: Record<string, string> = {};
    input.names.forEach((n, i) => {
      if (!byKey.has(nameKey(n))) fields[`names.${i}`] = `no category named ${n.trim()}`;
    });
    if (Object.keys(fields).length) throw new ValidationError(fields, 'Some categories do not exist');
    const named = names.map((n) => byKey.get(nameKey(n)) as CategoryRow);
    const into = input.into ?? '';

    const prompts = await promptsLinked(
      trx,
      named.map((c) => c.id),
    );
    if (into === '') {
      await trx
        .deleteFrom('categories')
        .where('id', '=', (eb) => eb.fn.any(eb.val(named.map((c) => c.id))))
        .execute();
      return { category: null, removed: named.map((c) => c.name), prompts };
    }

    const existingTarget = await trx
      .selectFrom('categories')
      .selectAll()
      .where('siteId', '=', site.id)
      .where(sql`lower(name)`, '=', nameKey(into))
      .executeTakeFirst();
    const target = existingTarget ?? (named[0] as CategoryRow);
    const folded = named.filter((c) => c.id !== target.id);
    const foldedIds = folded.map((c) => c.id);
    if (foldedIds.length) {
      await sql`
        INSERT INTO prompt_categories (prompt_id, category_id)
        SELECT DISTINCT prompt_id, ${target.id}::int FROM prompt_categories WHERE category_id = ANY(${foldedIds}::int[])
        ON CONFLICT DO NOTHING`.execute(trx);
      await trx
        .deleteFrom('categories')
        .where('id', '=', (eb) => eb.fn.any(eb.val(foldedIds)))
        .execute();
    }
    // The result is spelled as asked, so a rename can also change case.
    if (target.name !== into)
      await trx.updateTable('categories').set({ name: into }).where('id', '=', target.id).execute();
    const row = await withCounts(trx, site.id).where('c.id', '=', target.id).executeTakeFirstOrThrow();
    return { category: serializeCategory(row, Number(row.promptCount)), removed: folded.map((c) => c.name), prompts };
  });
}

/** How many prompts carry any of the categories. */
async function promptsLinked(db: Db, categoryIds: number[]): Promise<number> {
  if (categoryIds.length === 0) return 0;
  const row = await db
    .selectFrom('promptCategories')
    .select(sql<number>`count(DISTINCT prompt_id)`.as('n'))
    .where('categoryId', '=', (eb) => eb.fn.any(eb.val(categoryIds)))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
