import { Piscina } from 'piscina';
import { ValidationError } from '../../errors.ts';
import type { ParsedImport } from './csv.ts';
import type { CsvThreadResult } from './csv-thread.ts';

/**
 * Prompt CSV files (up to 2 MB) are parsed on a worker thread, so an import
 * never stalls the API's other requests while a few hundred milliseconds of
 * parsing run. One thread, started on demand and gone when idle, so a
 * process that imports nothing keeps none. The process has one pool, its
 * context's (`promptCsvPool` in src/context.ts, closed with it).
 */
export interface PromptCsvPool {
  /** The rows and row errors of a CSV text; a ValidationError when it cannot be read in `deadlineMs`. */
  parse(contents: string, deadlineMs?: number): Promise<ParsedImport>;
  close(): Promise<void>;
}

/**
 * csv-parse is a linear state machine and the largest file reads in under half
 * a second (test/unit/hostile-csv.test.ts), so this deadline only ever fires on
 * a fault; it still bounds what one tenant's file can hold of the thread.
 */
export const CSV_PARSE_DEADLINE_MS = 10_000;

export function createPromptCsvPool(): PromptCsvPool {
  let pool: Piscina | null = null;
  return {
    async parse(contents, deadlineMs = CSV_PARSE_DEADLINE_MS) {
      pool ??= new Piscina({
        filename: new URL('./csv-thread.ts', import.meta.url).href,
        minThreads: 0,
        maxThreads: 1,
        idleTimeout: 2_000,
        resourceLimits: { maxOldGenerationSizeMb: 512 },
      });
      let result: CsvThreadResult;
      try {
        result = (await pool.run(contents, { signal: AbortSignal.timeout(deadlineMs) })) as CsvThreadResult;
      } catch (err) {
        if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError')
          throw new ValidationError(
            { contents: `took longer than ${deadlineMs / 1000} s to read; the file was not imported` },
            'The file could not be read in time',
          );
        throw err;
      }
      if (result.ok) return result.parsed;
      throw new ValidationError(result.fields ?? {}, result.message);
    },
    async close() {
      const current = pool;
      pool = null;
      await current?.destroy();
    },
  };
}
