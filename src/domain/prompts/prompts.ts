import { sql } from 'kysely';
import { rebuildRollups } from '../facts/index.ts';
import type { AppContext } from '../../context.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { PromptRow, SiteRow } from '../../db/schema.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { assertCategoryRoom, categoryNamesOf, missingCategories, replaceCategories } from '../categories/index.ts';
import { uniqueNames, lockSite } from '../common/index.ts';
import { assertPersonaOfSite } from '../personas/index.ts';
import { assertPromptRoom } from './prompt-room.ts';
import type { PromptBulk, PromptCreate, PromptUpdate } from './schemas.ts';

/**
 * Prompts: the questions a site puts to assistants. Text is unique per site
 * compared trimmed and case-insensitively (unique index); a prompt has up to
 * 8 categories and, in variant A, a persona.
 */

/**
 * A prompt as every endpoint shows it. Scan results (`latest`, `history`,
 * `stability`) are added by the views that read them: the list
 * (./prompt-list.ts) and one prompt (./prompt-detail.ts).
 */
export function serializePrompt(row: PromptRow, categories: string[]) {
  return {
    id: row.id,
    text: row.text,
    categories,
    intent: row.intent,
    funnel: row.funnel,
    status: row.status,
    personaId: row.personaId,
    raw: row.raw,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

export type PromptView = ReturnType<typeof serializePrompt>;

export async function serializePrompts(db: Db, rows: PromptRow[]): Promise<PromptView[]> {
  const categories = await categoryNamesOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => serializePrompt(r, categories.get(r.id) ?? []));
}

/** One prompt of the site, or 404 (another site's id names nothing). */
export async function findPrompt(db: Executor, siteId: number, promptId: number): Promise<PromptRow> {
  const row = await db
    .selectFrom('prompts')
    .selectAll()
    .where('id', '=', promptId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No prompt with id ${promptId}`);
  return row;
}

async function assertTextFree(db: Db, siteId: number, text: string, exceptId?: number): Promise<void> {
  let q = db
    .selectFrom('prompts')
    .select('id')
    .where('siteId', '=', siteId)
    .where(sql`lower(btrim(text))`, '=', sql`lower(btrim(${text}))`);
  if (exceptId !== undefined) q = q.where('id', '<>', exceptId);
  const dup = await q.executeTakeFirst();
  if (dup) throw duplicateText(dup.id);
}

const duplicateText = (id?: number) =>
  new ConflictError(
    `A prompt with this text is already tracked${id ? ` (id ${id})` : ''}; texts are compared ignoring case`,
    { text: 'already tracked' },
  );

/** A concurrent writer can still win the unique index between check and insert: that is the same 409. */
async function uniqueText<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (
      (err as { code?: string; constraint?: string }).code === '23505' &&
      (err as { constraint?: string }).constraint === 'prompts_site_text_key'
    )
      throw duplicateText();
    throw err;
  }
}

function categoryInput(input: {
  category?: string | undefined;
  categories?: string[] | undefined;
}): string[] | undefined {
  if (input.categories !== undefined) return uniqueNames(input.categories);
  if (input.category !== undefined) return uniqueNames([input.category]);
  return undefined;
}

export async function createPrompt(ctx: AppContext, site: SiteRow, userId: number, input: PromptCreate) {
  const categories = categoryInput(input) ?? [];
  return uniqueText(() =>
    ctx.db.transaction().execute(async (trx) => {
      await lockSite(trx, site.id);
      await assertPromptRoom(trx, site, 1);
      await assertTextFree(trx, site.id, input.text);
      await assertPersonaOfSite(trx, site.id, input.personaId);
      const row = await trx
        .insertInto('prompts')
        .values({
          siteId: site.id,
          text: input.text,
          intent: input.intent,
          funnel: input.funnel,
          status: input.status,
          personaId: input.personaId ?? null,
          createdBy: userId,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await replaceCategories(trx, site.id, [row.id], categories);
      return { prompt: serializePrompt(row, (await categoryNamesOf(trx, [row.id])).get(row.id) ?? []) };
    }),
  );
}

/** Only fields sent change; `categories` replaces the list; a new text is a person's own wording, so it is no longer raw. */
export async function updatePrompt(ctx: AppContext, site: SiteRow, promptId: number, input: PromptUpdate) {
  const categories = categoryInput(input);
  return uniqueText(() =>
    ctx.db.transaction().execute(async (trx) => {
      // A new text must not race an import or create adding the same text, nor new categories another writer counting them.
      if (input.text !== undefined || categories !== undefined) await lockSite(trx, site.id);
      const current = await findPrompt(trx, site.id, promptId);
      if (input.text !== undefined && input.text !== current.text)
        await assertTextFree(trx, site.id, input.text, promptId);
      await assertPersonaOfSite(trx, site.id, input.personaId);
      const changes = {
        ...(input.text !== undefined && input.text !== current.text && { text: input.text, raw: false }),
        ...(input.intent !== undefined && { intent: input.intent }),
        ...(input.funnel !== undefined && { funnel: input.funnel }),
        ...(input.status !== undefined && { status: input.status }),
        ...(input.personaId !== undefined && { personaId: input.personaId }),
      };
      let row = current;
      if (Object.keys(changes).length || categories !== undefined) {
        row = await trx
          .updateTable('prompts')
          .set({ ...changes, updatedAt: sql`now()` })
          .where('id', '=', promptId)
          .returningAll()
          .executeTakeFirstOrThrow();
      }
      if (categories !== undefined) await replaceCategories(trx, site.id, [promptId], categories);
      return { prompt: serializePrompt(row, (await categoryNamesOf(trx, [promptId])).get(promptId) ?? []) };
    }),
  );
}

/**
 * One action on up to 5000 prompts, all of which must be this site's (else
 * 404 naming the missing ids, nothing changed: one indexed read checks
 * them). The action itself is one statement whatever the number of ids.
 */
export async function bulkPrompts(ctx: AppContext, site: SiteRow, input: PromptBulk) {
  const ids = [...new Set(input.ids)];
  return ctx.db.transaction().execute(async (trx) => {
    const found = await trx
      .selectFrom('prompts')
      .select('id')
      .where('siteId', '=', site.id)
      .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
      .execute();
    if (found.length !== ids.length) {
      const have = new Set(found.map((r) => r.id));
      const missing = ids.filter((id) => !have.has(id));
      const shown = missing.slice(0, 20).join(', ') + (missing.length > 20 ? `, and ${missing.length - 20} more` : '');
      throw new NotFoundError(`No prompt with id ${shown} in this project; nothing was changed`);
    }
    const inSite = trx
      .updateTable('prompts')
      .where('siteId', '=', site.id)
      .where('id', '=', (eb) => eb.fn.any(eb.val(ids)));

    if (input.delete) {
      // Answers and their facts go with their prompts (ON DELETE CASCADE).
      const answered = await trx
        .selectFrom('answers')
        .select('id')
        .where('promptId', '=', (eb) => eb.fn.any(eb.val(ids)))
        .limit(1)
        .executeTakeFirst();
      const res = await trx
        .deleteFrom('prompts')
        .where('siteId', '=', site.id)
        .where('id', '=', (eb) => eb.fn.any(eb.val(ids)))
        .executeTakeFirst();
      // Reports must no longer count the deleted answers.
      if (answered) await rebuildRollups(trx, site.id);
      return { action: 'delete', updated: 0, deleted: Number(res.numDeletedRows), categoriesCreated: [] as string[] };
    }
    if (input.status !== undefined) {
      const res = await inSite.set({ status: input.status, updatedAt: sql`now()` }).executeTakeFirst();
      return { action: 'status', updated: Number(res.numUpdatedRows), deleted: 0, categoriesCreated: [] as string[] };
    }
    if (input.personaId !== undefined) {
      await assertPersonaOfSite(trx, site.id, input.personaId);
      const res = await inSite.set({ personaId: input.personaId, updatedAt: sql`now()` }).executeTakeFirst();
      return {
        action: 'personaId',
        updated: Number(res.numUpdatedRows),
        deleted: 0,
        categoriesCreated: [] as string[],
      };
    }
    if (input.category === null) {
      await clearCategories(trx, site.id, ids);
      return { action: 'category', updated: ids.length, deleted: 0, categoriesCreated: [] as string[] };
    }
    // A new category counts against the site's limit, under the lock every category writer takes.
    await lockSite(trx, site.id);
    await assertCategoryRoom(trx, site.id, (await missingCategories(trx, site.id, [input.category as string])).length);
    const created = await setOneCategory(trx, site.id, ids, input.category as string);
    return { action: 'category', updated: ids.length, deleted: 0, categoriesCreated: created };
  });
}

/** Every prompt's categories become exactly `name` (created if new), in one statement. */
async function setOneCategory(db: Db, siteId: number, ids: number[], name: string): Promise<string[]> {
  const { rows } = await sql<{ name: string; created: boolean }>`
    WITH cat AS (
      INSERT INTO categories (site_id, name) VALUES (${siteId}, ${name})
      ON CONFLICT (site_id, lower(name)) DO UPDATE SET name = categories.name
      RETURNING id, name, (xmax = 0) AS created
    ), gone AS (
      DELETE FROM prompt_categories pc USING cat
      WHERE pc.prompt_id = ANY(${ids}::int[]) AND pc.category_id <> cat.id
    ), added AS (
      INSERT INTO prompt_categories (prompt_id, category_id)
      SELECT p, cat.id FROM unnest(${ids}::int[]) AS p CROSS JOIN cat
      ON CONFLICT DO NOTHING
    ), touched AS (
      UPDATE prompts SET updated_at = now() WHERE site_id = ${siteId} AND id = ANY(${ids}::int[])
    )
    SELECT name, created FROM cat`.execute(db);
  return rows.filter((r) => r.created).map((r) => r.name);
}

/** Every category comes off the prompts, in one statement. */
async function clearCategories(db: Db, siteId: number, ids: number[]): Promise<void> {
  await sql`
    WITH gone AS (DELETE FROM prompt_categories WHERE prompt_id = ANY(${ids}::int[]))
    UPDATE prompts SET updated_at = now() WHERE site_id = ${siteId} AND id = ANY(${ids}::int[])`.execute(db);
}

/** Imported prompts still worded as search queries, which rewrite would turn into questions. */
