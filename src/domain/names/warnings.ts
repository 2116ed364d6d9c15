import type { z } from 'zod';
import { ambiguityOf } from '../../analysis/index.ts';
import type { nameWarning } from './responses.ts';

export type NameWarning = z.output<typeof nameWarning>;

/**
 * The ambiguous names a create or change saves, in the order given: what
 * `warnings` lists beside the usual body (CONTRACT.md). Only the names the
 * request sends are checked, so a change of a site's location warns about
 * nothing; each name once per field.
 */
export function nameWarnings(
  saved: { field: NameWarning['field']; names: readonly string[] | undefined }[],
): NameWarning[] {
  const out: NameWarning[] = [];
  for (const { field, names } of saved) {
    const seen = new Set<string>();
    for (const raw of names ?? []) {
      const name = raw.trim();
      const { ambiguous, reason } = ambiguityOf(name);
      if (!ambiguous || reason === null || seen.has(name.toLowerCase())) continue;
      seen.add(name.toLowerCase());
      out.push({ field, name, reason });
    }
  }
  return out;
}
