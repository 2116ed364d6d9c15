import { AppError } from '../../errors.ts';
import { parsePromptCsv, type ParsedImport } from './csv.ts';

/** Outcome of parsing on the CSV thread; errors travel as data, since classes do not cross threads. */
export type CsvThreadResult =
  | { ok: true; parsed: ParsedImport }
  | { ok: false; status: number; message: string; fields: Record<string, string> | null };

/** The upload thread's task (./csv-upload.ts, src/upload-pool.ts): one CSV text in, its rows and row errors out. */
export default function parseOnThread(contents: string): CsvThreadResult {
  try {
    return { ok: true, parsed: parsePromptCsv(contents) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, status: err.status, message: err.message, fields: err.fields };
    throw err;
  }
}
