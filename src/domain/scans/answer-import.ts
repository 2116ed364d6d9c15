import { sql } from 'kysely';
import { z } from 'zod';
import { PROVIDER_KEYS, defaultModel, isProviderKey } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import { BadRequestError } from '../../errors.ts';
import { analyseAnswers, ensureAnswerMonths, storeAnswer, type NewAnswer, loadBrandBook } from '../facts/index.ts';
import { limitsOf } from '../orgs/index.ts';
import { findSite } from '../sites/index.ts';

/** Imported answers analysed per task on the analysis threads. */
const IMPORT_BATCH = 100;

/** One line of an answers import file (CONTRACT.md "answers import"). */
export const importedAnswer = z.object({
  prompt: z.string().trim().min(3).max(500),
  provider: z.enum(PROVIDER_KEYS),
  model: z.string().min(1).optional(),
  askedAt: z.iso.datetime({ offset: true }),
  text: z.string().nullable(),
  citations: z.array(z.object({ url: z.string().min(1), title: z.string().nullish() })).default([]),
  searches: z.array(z.string()).default([]),
  error: z.string().nullish(),
  context: z.string().nullish(),
});
export type ImportedAnswer = z.output<typeof importedAnswer>;

/** Parses JSONL, naming the line of every problem; nothing is stored unless every line is valid. */
export function parseAnswerLines(contents: string): ImportedAnswer[] {
  const problems: string[] = [];
  const rows: ImportedAnswer[] = [];
  contents.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      problems.push(`line ${i + 1}: not JSON`);
      return;
    }
    // `promptText` is accepted as a synonym for files written by other tools.
    if (value && typeof value === 'object' && 'promptText' in value && !('prompt' in value))
      value = { ...value, prompt: (value as { promptText: unknown }).promptText };
    const parsed = importedAnswer.safeParse(value);
    if (parsed.success) rows.push(parsed.data);
    else
      problems.push(
        `line ${i + 1}: ${parsed.error.issues.map((x) => `${x.path.join('.') || 'line'} ${x.message}`).join('; ')}`,
      );
  });
  if (problems.length)
    throw new BadRequestError(`The file has ${problems.length} invalid line(s):\n${problems.slice(0, 20).join('\n')}`);
  return rows;
}

/**
 * Stores answers collected elsewhere as one scan with trigger "import",
 * analysed and rolled up like any other. Prompts not yet tracked are created
 * (active), within the workspace's prompts-per-site limit. Imports are not charged.
 */
export async function importAnswers(
  ctx: AppContext,
  orgId: number,
  siteId: number,
  rows: ImportedAnswer[],
): Promise<{ scanId: number; answers: number; promptsCreated: number }> {
  const site = await findSite(ctx.db, orgId, siteId);
  for (const r of rows) if (!isProviderKey(r.provider)) throw new BadRequestError(`unknown provider ${r.provider}`);
  const texts = [...new Map(rows.map((r) => [r.prompt.trim().toLowerCase(), r.prompt.trim()])).values()];

  const promptIds = await ctx.db.transaction().execute(async (trx) => {
    const org = await trx.selectFrom('orgs').selectAll().where('id', '=', orgId).executeTakeFirstOrThrow();
    await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().execute();
    const existing = await trx
      .selectFrom('prompts')
      .select(['id', sql<string>`lower(btrim(text))`.as('key')])
      .where('siteId', '=', siteId)
      .execute();
    const byKey = new Map(existing.map((p) => [p.key, p.id]));
    const missing = texts.filter((t) => !byKey.has(t.toLowerCase()));
    const limit = limitsOf(org).promptsPerSite;
    if (existing.length + missing.length > limit) {
      throw new BadRequestError(
        `Importing would create ${missing.length} prompts; this workspace allows ${limit} prompts per site`,
      );
    }
    if (missing.length) {
      const created = await trx
        .insertInto('prompts')
        .values(missing.map((text) => ({ siteId, text, status: 'active' as const })))
        .returning(['id', 'text'])
        .execute();
      for (const p of created) byKey.set(p.text.trim().toLowerCase(), p.id);
    }
    return { byKey, created: missing.length };
  });

  const now = ctx.clock.now();
  const scan = await ctx.db
    .insertInto('scans')
    .values({
      orgId,
      siteId: site.id,
      status: 'done',
      trigger: 'import',
      label: 'Imported answers',
      answersTotal: rows.length,
      startedAt: now,
      finishedAt: now,
    })
    .returning(['id', 'createdAt'])
    .executeTakeFirstOrThrow();
  // Answers sit in their scan's month (docs/decisions.md), whenever they were asked.
  await ensureAnswerMonths(ctx.db, scan.createdAt);
  const book = await loadBrandBook(ctx.db, siteId);
  const answers: NewAnswer[] = rows.flatMap((r) => {
    const promptId = promptIds.byKey.get(r.prompt.trim().toLowerCase());
    if (promptId === undefined) return [];
    return [
      {
        scanId: scan.id,
        siteId,
        promptId,
        provider: r.provider,
        model: r.model ?? defaultModel(r.provider).id,
        askedAt: new Date(r.askedAt),
        text: r.text,
        citations: r.citations.map((c) => ({ url: c.url, title: c.title ?? null })),
        searches: r.searches,
        costMicros: 0,
        error: r.error ?? (r.text ? null : 'no answer'),
        context: r.context ?? null,
      },
    ];
  });
  let stored = 0;
  // Imported text is anyone's: it is read on the analysis threads, within their time limit, like a scan's answers.
  for (let i = 0; i < answers.length; i += IMPORT_BATCH) {
    const batch = answers.slice(i, i + IMPORT_BATCH);
    const facts = await analyseAnswers(ctx, batch, book);
    for (const [k, answer] of batch.entries())
      if (await storeAnswer(ctx, { ...answer, facts: facts[k] }, book)) stored++;
  }
  await ctx.db.updateTable('scans').set({ answersTotal: stored }).where('id', '=', scan.id).execute();
  return { scanId: scan.id, answers: stored, promptsCreated: promptIds.created };
}
