import { ValidationError } from '../../errors.ts';
import type { UploadPool } from '../../upload-pool.ts';
import type { ParsedImport } from './csv.ts';
import type { CsvThreadResult } from './csv-thread.ts';

/**
 * csv-parse is a linear state machine and the largest file reads in under half
 * a second (test/unit/hostile-csv.test.ts), so this deadline only ever fires on
 * a fault; it still bounds what one tenant's file can hold of the thread.
 */
export const CSV_PARSE_DEADLINE_MS = 10_000;

const CSV_THREAD = new URL('./csv-thread.ts', import.meta.url);

/**
 * The rows and row errors of a prompt CSV text, read on the process's upload
 * thread (`ctx.uploadPool()`, src/upload-pool.ts) so the API's other requests
 * never wait on it; a ValidationError when it cannot be read in `deadlineMs`.
 */
export async function parsePromptCsvOnThread(
  pool: UploadPool,
  contents: string,
  deadlineMs = CSV_PARSE_DEADLINE_MS,
): Promise<ParsedImport> {
  let result: CsvThreadResult;
  try {
    result = (await pool.run(CSV_THREAD, contents, deadlineMs)) as CsvThreadResult;
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
}
