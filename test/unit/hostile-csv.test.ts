import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.ts';
import { createUploadPool } from '../../src/upload-pool.ts';
import { parsePromptCsvOnThread } from '../../src/domain/prompts/csv-upload.ts';
import { parsePromptCsv } from '../../src/domain/prompts/csv.ts';

/**
 * A prompt CSV is a file a tenant controls (up to 2 MB, the import's cap):
 * its worst shapes read in linear time, and the thread that reads it gives
 * up at a deadline.
 */
const MB2 = 2_000_000;
const WORST: Record<string, string> = {
  'an unclosed quote': 'text\n' + '"'.repeat(MB2),
  'only newlines': 'text\n' + '\n'.repeat(MB2),
  'only carriage returns': 'text\r' + '\r'.repeat(MB2),
  'only delimiters': 'text\n' + ','.repeat(MB2),
  'category separators': 'text;category\na;' + ';|'.repeat(MB2 / 2),
  'doubled quotes': 'text,category\n' + '"a"",b\n'.repeat(MB2 / 8),
  'many rows': 'text\n' + 'best crm\n'.repeat(MB2 / 9),
};

function elapsed(fn: () => void): number {
  const t = performance.now();
  try {
    fn();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
  }
  return performance.now() - t;
}

describe('hostile prompt CSV files', () => {
  it.each(Object.keys(WORST))(
    'reads 2 MB of %s in linear time (under 15 s; about 0.5 s on a quiet machine)',
    (name) => {
      expect(elapsed(() => parsePromptCsv(WORST[name] as string))).toBeLessThan(15_000);
    },
  );

  it('reads generated adversarial files within a fixed time', () => {
    const alphabet = fc.constantFrom('"', ',', ';', '|', '\t', '\n', '\r', ' ', 'a', '?', '\uFEFF', '\u0000', 'é');
    fc.assert(
      fc.property(fc.string({ unit: alphabet, maxLength: 20_000 }), fc.integer({ min: 1, max: 20 }), (body, times) => {
        expect(elapsed(() => parsePromptCsv('text,category\n' + body.repeat(times)))).toBeLessThan(2_000);
      }),
      { numRuns: 60, seed: 24 },
    );
  });

  it('gives up at its deadline with a 422 naming the file, and the next import still reads', async () => {
    const pool = createUploadPool();
    try {
      const err = await parsePromptCsvOnThread(pool, WORST['many rows'] as string, 1).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).fields).toEqual({
        contents: expect.stringMatching(/took longer than 0.001 s to read/),
      });
      const ok = await parsePromptCsvOnThread(pool, 'text\nbest crm for startups\n');
      expect(ok.rows).toHaveLength(1);
    } finally {
      await pool.close();
    }
  });
});
