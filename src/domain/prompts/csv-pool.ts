import { Piscina } from 'piscina';
import { ValidationError } from '../../errors.ts';
import type { ParsedImport } from './csv.ts';
import type { CsvThreadResult } from './csv-thread.ts';

/**
 * Prompt CSV files (up to 2 MB) are parsed on a worker thread, so an import
 * never stalls the API's other requests while a few hundred milliseconds of
 * parsing run. One thread, started on demand and gone when idle, so a
 * process that imports nothing keeps none.
 */
let pool: Piscina | null = null;

export async function parsePromptCsvOffThread(contents: string): Promise<ParsedImport> {
  pool ??= new Piscina({ filename: new URL('./csv-thread.ts', import.meta.url).href, minThreads: 0, maxThreads: 1, idleTimeout: 2_000 });
  const result = (await pool.run(contents)) as CsvThreadResult;
  if (result.ok) return result.parsed;
  throw new ValidationError(result.fields ?? {}, result.message);
}
