import type { AppContext } from '../../src/context.ts';
import { importAnswers, type ImportedAnswer } from '../../src/domain/scans/answer-import.ts';

/** Seeds answers through the same path scans and `sightline answers import` use. */
export function seedAnswers(ctx: AppContext, orgId: number, siteId: number, rows: Partial<ImportedAnswer>[]) {
  return importAnswers(
    ctx,
    orgId,
    siteId,
    rows.map((r, i) => ({
      prompt: r.prompt ?? `Which tool is best for task ${i}?`,
      provider: r.provider ?? 'openai',
      askedAt: r.askedAt ?? '2026-11-16T10:00:00Z',
      text: r.text === undefined ? 'No brands here.' : r.text,
      citations: r.citations ?? [],
      searches: r.searches ?? [],
      model: r.model,
      error: r.error,
      context: r.context,
    })),
  );
}
