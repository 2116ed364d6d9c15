import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { PromptRow, SiteRow } from '../../db/schema.ts';
import { assertCategoryRoom, categoryNamesOf, missingCategories, upsertCategories } from '../categories/index.ts';
import { nameKey, uniqueNames, lockSite } from '../common/index.ts';
import { limitMessage, promptRoom } from './prompt-room.ts';
import { looksRaw, type ImportRow, type RowError } from './csv.ts';
import { parsePromptCsvOnThread } from './csv-upload.ts';
import type { PromptImport } from './schemas.ts';

/**
 * CSV import of prompts: the whole file in one transaction, with a fixed
 * number of multi-row statements per batch of rows, never one per row.
 * Every data row ends up created, updated or skipped (with a reason when it
 * was not simply unchanged).
 */

const INSERT_BATCH = 1000;
const LINK_BATCH = 20_000;
/** Reasons listed in the answer; past this the count of the rest is given. */
export const ERRORS_LISTED = 1000;

type Existing = Pick<PromptRow, 'id' | 'text' | 'intent' | 'funnel' | 'status'> & { categoryKeys: string[] };

interface Update {
  id: number;
  intent: PromptRow['intent'] | null;
  funnel: PromptRow['funnel'] | null;
  status: PromptRow['status'] | null;
  /** null: categories stay as they are. */
  categories: string[] | null;
}

async function existingByText(db: Db, siteId: number, keys: string[]): Promise<Map<string, Existing>> {
  const map = new Map<string, Existing>();
  if (keys.length === 0) return map;
  const rows = await db
    .selectFrom('prompts')
    .select(['id', 'text', 'intent', 'funnel', 'status'])
    .where('siteId', '=', siteId)
    .where(sql`lower(btrim(text))`, '=', sql`any(${keys}::text[])`)
    .execute();
  const categories = await categoryNamesOf(
    db,
    rows.map((r) => r.id),
  );
  for (const row of rows)
    map.set(nameKey(row.text), { ...row, categoryKeys: (categories.get(row.id) ?? []).map(nameKey).sort() });
  return map;
}

/** What the row would change on an existing prompt; null when nothing. */
function changesOf(existing: Existing, row: ImportRow): Update | null {
  const intent = row.intent && row.intent !== existing.intent ? row.intent : null;
  const funnel = row.funnel && row.funnel !== existing.funnel ? row.funnel : null;
  const status = row.status && row.status !== existing.status ? row.status : null;
  const keys = row.categories?.map(nameKey).sort();
  const categories =
    row.categories && keys && keys.join('\n') !== existing.categoryKeys.join('\n') ? row.categories : null;
  if (!intent && !funnel && !status && !categories) return null;
  return { id: existing.id, intent, funnel, status, categories };
}

async function insertLinks(db: Db, promptIds: number[], categoryIds: number[]): Promise<void> {
  for (let i = 0; i < promptIds.length; i += LINK_BATCH) {
    await sql`
      INSERT INTO prompt_categories (prompt_id, category_id)
      SELECT * FROM unnest(${promptIds.slice(i, i + LINK_BATCH)}::int[], ${categoryIds.slice(i, i + LINK_BATCH)}::int[])
      ON CONFLICT DO NOTHING`.execute(db);
  }
}

export async function importPrompts(ctx: AppContext, site: SiteRow, userId: number, input: PromptImport) {
  const parsed = await parsePromptCsvOnThread(ctx.uploadPool(), input.contents);

  const run = async (trx: Db) => {
    if (!input.dryRun) await lockSite(trx, site.id);
    const errors: RowError[] = [...parsed.errors];

    const firstLine = new Map<string, number>();
    const distinct: ImportRow[] = [];
    for (const row of parsed.rows) {
      const key = nameKey(row.text);
      const first = firstLine.get(key);
      if (first !== undefined) errors.push({ line: row.line, reason: `same text as line ${first}` });
      else {
        firstLine.set(key, row.line);
        distinct.push(row);
      }
    }

    const [existing, room] = await Promise.all([
      existingByText(trx, site.id, [...firstLine.keys()]),
      promptRoom(trx, site),
    ]);
    const creates: ImportRow[] = [];
    const updates: Update[] = [];
    // In file order, so new categories are listed as the file names them.
    const named: string[] = [];
    for (const row of distinct) {
      const current = existing.get(nameKey(row.text));
      if (current) {
        const change = changesOf(current, row);
        if (change) {
          updates.push(change);
          named.push(...(change.categories ?? []));
        }
      } else if (creates.length < room.free) {
        creates.push(row);
        named.push(...(row.categories ?? []));
      } else {
        errors.push({ line: row.line, reason: limitMessage(room.limit) });
      }
    }
    const categoryNames = uniqueNames(named);

    let created = creates.length;
    let newCategories: string[];
    if (input.dryRun) {
      newCategories = await missingCategories(trx, site.id, categoryNames);
      // Refused as the import itself would be (upsertCategories checks the same).
      await assertCategoryRoom(trx, site.id, newCategories.length);
    } else {
      const categories = await upsertCategories(trx, site.id, categoryNames);
      newCategories = categories.created;
      const categoryId = (name: string) => categories.byKey.get(nameKey(name)) as number;

      const linkPrompts: number[] = [];
      const linkCategories: number[] = [];
      const inserted = new Map<string, number>();
      for (let i = 0; i < creates.length; i += INSERT_BATCH) {
        const batch = creates.slice(i, i + INSERT_BATCH);
        const rows = await trx
          .insertInto('prompts')
          .values(
            batch.map((r) => ({
              siteId: site.id,
              text: r.text,
              intent: r.intent ?? 'informational',
              funnel: r.funnel ?? 'awareness',
              status: r.status ?? input.status,
              raw: looksRaw(r.text),
              createdBy: userId,
            })),
          )
          // Only a text the database compares equal where this file did not can collide; that row is skipped below.
          .onConflict((oc) => oc.doNothing())
          .returning(['id', 'text'])
          .execute();
        for (const row of rows) inserted.set(row.text, row.id);
      }
      for (const row of creates) {
        const id = inserted.get(row.text);
        if (id === undefined) {
          created--;
          errors.push({ line: row.line, reason: 'a prompt with this text is already tracked' });
          continue;
        }
        for (const name of row.categories ?? []) {
          linkPrompts.push(id);
          linkCategories.push(categoryId(name));
        }
      }

      if (updates.length) {
        await sql`
          UPDATE prompts p SET
            intent = coalesce(u.intent, p.intent),
            funnel = coalesce(u.funnel, p.funnel),
            status = coalesce(u.status, p.status),
            updated_at = now()
          FROM unnest(
            ${updates.map((u) => u.id)}::int[], ${updates.map((u) => u.intent)}::text[],
            ${updates.map((u) => u.funnel)}::text[], ${updates.map((u) => u.status)}::text[]
          ) AS u(id, intent, funnel, status)
          WHERE p.id = u.id AND p.site_id = ${site.id}`.execute(trx);
        const recategorised = updates.filter((u) => u.categories);
        if (recategorised.length) {
          await trx
            .deleteFrom('promptCategories')
            .where('promptId', '=', (eb) => eb.fn.any(eb.val(recategorised.map((u) => u.id))))
            .execute();
          for (const u of recategorised) {
            for (const name of u.categories ?? []) {
              linkPrompts.push(u.id);
              linkCategories.push(categoryId(name));
            }
          }
        }
      }
      await insertLinks(trx, linkPrompts, linkCategories);
    }

    errors.sort((a, b) => a.line - b.line);
    return {
      rows: parsed.count,
      created,
      updated: updates.length,
      skipped: parsed.count - created - updates.length,
      categories: newCategories,
      errors: errors.slice(0, ERRORS_LISTED),
      errorsOmitted: Math.max(0, errors.length - ERRORS_LISTED),
      dryRun: input.dryRun,
    };
  };

  return input.dryRun ? run(ctx.db) : ctx.db.transaction().execute(run);
}
