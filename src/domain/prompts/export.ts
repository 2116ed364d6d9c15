import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { PROVIDER_KEYS } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { categoryNamesOf } from '../categories/index.ts';
import { defaultDir, filteredPrompts, orderedPrompts, type PromptExportQuery } from './list.ts';
import { historyStart, promptResults } from './verdicts.ts';

/**
 * The prompt list as CSV, streamed: the matching ids are read first (a
 * number each, small even for thousands of prompts), then the rows and their
 * scan results in batches, so memory stays flat in the number of prompts.
 */

/**
 * The prompt's own columns first (they read back through import), then its
 * scan results: one latest verdict per assistant, stability, then its
 * consistency: per assistant how many of the latest scan's samples named or
 * cited the brand and how many were asked ("2 of 3": `named_openai` 2,
 * `samples_openai` 3), and the percent naming it over every assistant's
 * answered samples. Empty where the assistant never answered the prompt.
 */
export const EXPORT_COLUMNS = [
  'text',
  'categories',
  'intent',
  'funnel',
  'status',
  'persona',
  'createdAt',
  ...PROVIDER_KEYS.map((k) => `latest_${k}` as const),
  'stability',
  ...PROVIDER_KEYS.flatMap((k) => [`named_${k}` as const, `samples_${k}` as const]),
  'consistency',
] as const;
const BATCH = 500;

const csvOptions = {
  // RFC 4180 line ends; a field holding any line break is quoted so every reader keeps it in one cell.
  record_delimiter: 'windows',
  quoted_match: /[\r\n]/,
  // A cell starting with =, +, -, @, tab or CR (or their full-width forms) is prefixed with ' so a
  // spreadsheet shows it as text instead of running it as a formula (OWASP "CSV injection").
  escape_formulas: true,
} as const;

export async function exportPromptsCsv(
  ctx: AppContext,
  site: SiteRow,
  query: PromptExportQuery,
): Promise<{ stream: Readable; filename: string }> {
  const { db } = ctx;
  const now = ctx.clock.now();
  const start = await historyStart(db, site.id, query.period, query.start, now);
  const dir = query.dir ?? defaultDir(query.sort);
  const ids = (
    await orderedPrompts(
      filteredPrompts(db, site.id, query, { period: query.period, start }).select('p.id'),
      query.sort,
      dir,
    ).execute()
  ).map((r) => r.id);

  async function* lines(): AsyncGenerator<string> {
    yield stringify([], { ...csvOptions, header: true, columns: [...EXPORT_COLUMNS] });
    for (let i = 0; i < ids.length; i += BATCH) {
      const chunk = ids.slice(i, i + BATCH);
      const [rows, categories, results] = await Promise.all([
        db
          .selectFrom('prompts as p')
          .leftJoin('personas as pe', 'pe.id', 'p.personaId')
          .select(['p.id', 'p.text', 'p.intent', 'p.funnel', 'p.status', 'p.createdAt', 'pe.name as persona'])
          .where('p.id', '=', (eb) => eb.fn.any(eb.val(chunk)))
          .execute(),
        categoryNamesOf(db, chunk),
        promptResults(db, site.id, chunk, query.period, start),
      ]);
      const byId = new Map(rows.map((r) => [r.id, r]));
      const records: string[][] = [];
      for (const id of chunk) {
        // A prompt deleted since the ids were read is simply left out.
        const r = byId.get(id);
        if (!r) continue;
        const result = results.get(id);
        records.push([
          r.text,
          (categories.get(id) ?? []).join(';'),
          r.intent,
          r.funnel,
          r.status,
          r.persona ?? '',
          r.createdAt.toISOString(),
          ...PROVIDER_KEYS.map((k) => result?.latest[k] ?? ''),
          result?.stability ?? '',
          ...PROVIDER_KEYS.flatMap((k) => {
            const c = result?.consistency?.providers[k];
            return c ? [String(c.named), String(c.samples)] : ['', ''];
          }),
          result?.consistency?.share === null || result?.consistency?.share === undefined
            ? ''
            : String(result.consistency.share),
        ]);
      }
      if (records.length) yield stringify(records, csvOptions);
    }
  }

  return { stream: Readable.from(lines()), filename: `prompts-${site.domain}-${now.toISOString().slice(0, 10)}.csv` };
}
