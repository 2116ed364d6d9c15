import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../db/database.ts';
import type { SiteRow } from '../db/schema.ts';
import { categoryNamesOf } from './categories.ts';
import { defaultDir, filteredPrompts, orderedPrompts, type PromptFilters } from './prompt-list.ts';

/**
 * The prompt list as CSV, streamed: the matching ids are read first (a
 * number each, small even for thousands of prompts), then the rows in
 * batches, so memory stays flat in the number of prompts.
 */

export const EXPORT_COLUMNS = ['text', 'categories', 'intent', 'funnel', 'status', 'persona', 'createdAt'] as const;
const BATCH = 500;

const csvOptions = {
  // RFC 4180 line ends; a field holding any line break is quoted so every reader keeps it in one cell.
  record_delimiter: 'windows',
  quoted_match: /[\r\n]/,
} as const;

export async function exportPromptsCsv(db: Db, site: SiteRow, filters: PromptFilters, now: Date): Promise<{ stream: Readable; filename: string }> {
  const dir = filters.dir ?? defaultDir(filters.sort);
  const ids = (await orderedPrompts(filteredPrompts(db, site.id, filters).select('p.id'), filters.sort, dir).execute()).map((r) => r.id);

  async function* lines(): AsyncGenerator<string> {
    yield stringify([], { ...csvOptions, header: true, columns: [...EXPORT_COLUMNS] });
    for (let i = 0; i < ids.length; i += BATCH) {
      const chunk = ids.slice(i, i + BATCH);
      const [rows, categories] = await Promise.all([
        db
          .selectFrom('prompts as p')
          .leftJoin('personas as pe', 'pe.id', 'p.personaId')
          .select(['p.id', 'p.text', 'p.intent', 'p.funnel', 'p.status', 'p.createdAt', 'pe.name as persona'])
          .where('p.id', '=', (eb) => eb.fn.any(eb.val(chunk)))
          .execute(),
        categoryNamesOf(db, chunk),
      ]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const records: string[][] = [];
      for (const id of chunk) {
        // A prompt deleted since the ids were read is simply left out.
        const r = byId.get(id);
        if (!r) continue;
        records.push([r.text, (categories.get(id) ?? []).join(';'), r.intent, r.funnel, r.status, r.persona ?? '', r.createdAt.toISOString()]);
      }
      if (records.length) yield stringify(records, csvOptions);
    }
  }

  return { stream: Readable.from(lines()), filename: `prompts-${site.domain}-${now.toISOString().slice(0, 10)}.csv` };
}
