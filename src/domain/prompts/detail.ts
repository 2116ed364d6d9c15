import { sql } from 'kysely';
import { z } from 'zod';
import { bestVerdict, stabilityChange } from '../../analysis/index.ts';
import { PROVIDER_KEYS, isProviderKey, type ProviderKey } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import { findPrompt, serializePrompt } from './prompts.ts';
import type { SiteRow, Verdict } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { answersWithFacts, serializeAnswer } from '../facts/index.ts';
import { categoryNamesOf } from '../categories/index.ts';
import { addPeriods, periodQuerySchema, providerParam, pagingShape } from '../common/index.ts';
import { historyStart, historyWindow, latestResults, noLatest, stabilityOf } from './verdicts.ts';

/**
 * One prompt with its scan results (GET /projects/:id/prompts/:promptId) and
 * one of its answers word for word (GET .../answer).
 */

export const promptDetailQuerySchema = periodQuerySchema.extend(pagingShape(50));
export type PromptDetailQuery = z.output<typeof promptDetailQuerySchema>;

export const promptAnswerQuerySchema = z
  .object({
    engine: providerParam.optional(),
    r: z.coerce
      .number({ error: 'r must be an answer id' })
      .int('r must be an answer id')
      .positive('r must be an answer id')
      .max(Number.MAX_SAFE_INTEGER, 'r must be an answer id')
      .optional(),
  })
  .superRefine((q, ctx) => {
    if (q.engine !== undefined && q.r !== undefined)
      ctx.addIssue({ code: 'custom', path: ['r'], message: 'give engine or r, not both' });
  });
export type PromptAnswerQuery = z.output<typeof promptAnswerQuerySchema>;

function latestRows(ctx: AppContext, promptId: number) {
  return ctx.db
    .selectFrom('rollupPromptLatest')
    .select(['provider', 'answerId', 'askedAt', 'verdict', 'brandRank', 'samples', 'answered', 'named'])
    .where('promptId', '=', promptId)
    .execute();
}

/** Every week from the prompt's first answer to its last, oldest first: the best verdict overall and per assistant. */
async function weeklyHistory(ctx: AppContext, promptId: number) {
  const { rows } = await sql<{ start: string; provider: string; verdict: Verdict }>`
    SELECT date_trunc('week', day::timestamp)::date AS start, provider,
           (ARRAY['failed', 'missing', 'lost', 'named', 'cited'])[max(CASE verdict WHEN 'failed' THEN 1 WHEN 'missing' THEN 2 WHEN 'lost' THEN 3 WHEN 'named' THEN 4 ELSE 5 END)] AS verdict
      FROM answer_facts
     WHERE prompt_id = ${promptId}
     GROUP BY 1, provider
     ORDER BY 1`.execute(ctx.db);
  const first = rows[0]?.start;
  const last = rows[rows.length - 1]?.start;
  if (!first || !last) return [];
  const weeks: { start: string; verdict: Verdict | null; providers: Record<ProviderKey, Verdict | null> }[] = [];
  for (let start = first; start <= last; start = addPeriods('week', start, 1))
    weeks.push({ start, verdict: null, providers: noLatest() });
  const index = new Map(weeks.map((w, i) => [w.start, i]));
  for (const r of rows) {
    const week = weeks[index.get(r.start) ?? -1];
    if (week && isProviderKey(r.provider)) week.providers[r.provider] = r.verdict;
  }
  for (const w of weeks) w.verdict = bestVerdict(Object.values(w.providers).filter((v): v is Verdict => v !== null));
  return weeks;
}

export async function promptDetail(ctx: AppContext, site: SiteRow, promptId: number, query: PromptDetailQuery) {
  const row = await findPrompt(ctx.db, site.id, promptId);
  const start = await historyStart(ctx.db, site.id, query.period, query.start, ctx.clock.now());
  const [categories, latest, squares, weeks, results, total, samples] = await Promise.all([
    categoryNamesOf(ctx.db, [promptId]),
    latestRows(ctx, promptId),
    historyWindow(ctx.db, site.id, [promptId], query.period, start),
    weeklyHistory(ctx, promptId),
    ctx.db
      .selectFrom('answers as a')
      .leftJoin('answerFacts as f', (j) => j.onRef('f.answerId', '=', 'a.id').onRef('f.month', '=', 'a.month'))
      .select([
        'a.id',
        'a.scanId',
        'a.provider',
        'a.sample',
        'a.model',
        'a.askedAt',
        'f.verdict',
        'f.mentioned',
        'f.ownCited',
        'f.brandRank',
        'f.tone',
        'a.error',
      ])
      .where('a.siteId', '=', site.id)
      .where('a.promptId', '=', promptId)
      .orderBy('a.askedAt', 'desc')
      .orderBy('a.id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    ctx.db
      .selectFrom('answers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('promptId', '=', promptId)
      .executeTakeFirstOrThrow(),
    latestResults(ctx.db, [promptId]),
  ]);
  const latestVerdicts = noLatest();
  const latestAnswers = Object.fromEntries(PROVIDER_KEYS.map((k) => [k, null])) as Record<
    ProviderKey,
    {
      answerId: number;
      askedAt: Date;
      verdict: Verdict;
      brandRank: number | null;
      samples: number;
      answered: number;
      named: number;
    } | null
  >;
  for (const l of latest) {
    if (!isProviderKey(l.provider)) continue;
    latestVerdicts[l.provider] = l.verdict;
    // samples, answered, named: that scan's samples of the prompt by this assistant ("2 of 3 named it").
    latestAnswers[l.provider] = {
      answerId: l.answerId,
      askedAt: l.askedAt,
      verdict: l.verdict,
      brandRank: l.brandRank,
      samples: l.samples,
      answered: l.answered,
      named: l.named,
    };
  }
  const window = squares.squares.get(promptId) ?? [];
  const stability = stabilityOf(window);
  return {
    prompt: {
      ...serializePrompt(row, categories.get(promptId) ?? []),
      latest: latestVerdicts,
      history: weeks,
      stability,
      stabilityChange: stability === null ? null : stabilityChange(squares.counts.get(promptId) ?? []),
      consistency: samples.get(promptId)?.consistency ?? null,
    },
    period: query.period,
    start,
    squares: window,
    latestAnswers,
    results: results.map((r) => ({
      id: r.id,
      scanId: r.scanId,
      provider: r.provider,
      sample: r.sample,
      model: r.model,
      askedAt: r.askedAt,
      verdict: r.verdict ?? 'failed',
      mentioned: r.mentioned ?? false,
      ownCited: r.ownCited ?? false,
      brandRank: r.brandRank,
      tone: r.tone,
      error: r.error,
    })),
    total: Number(total.n),
    page: query.page,
    perPage: query.perPage,
  };
}

/**
 * One answer word for word: `r` names a past answer of this prompt; `engine`
 * picks that assistant's latest; neither picks the latest answer of the
 * first assistant, in provider order, whose call did not fail (else the first that answered at all).
 */
export async function promptAnswer(ctx: AppContext, site: SiteRow, promptId: number, query: PromptAnswerQuery) {
  const prompt = await findPrompt(ctx.db, site.id, promptId);
  const latest = await latestRows(ctx, promptId);
  const perProvider = PROVIDER_KEYS.flatMap((k) => latest.filter((l) => l.provider === k)).map((l) => ({
    provider: l.provider,
    answerId: l.answerId,
    askedAt: l.askedAt,
    verdict: l.verdict,
  }));
  let answerId: number | undefined;
  if (query.r !== undefined) answerId = query.r;
  else if (query.engine !== undefined) answerId = perProvider.find((e) => e.provider === query.engine)?.answerId;
  else answerId = (perProvider.find((e) => e.verdict !== 'failed') ?? perProvider[0])?.answerId;

  const row =
    answerId === undefined
      ? undefined
      : await answersWithFacts(ctx)
          .where('a.id', '=', answerId)
          .where('a.siteId', '=', site.id)
          .where('a.promptId', '=', promptId)
          .executeTakeFirst();
  if (query.r !== undefined && !row) throw new NotFoundError(`No answer with id ${query.r} for this prompt`);
  return {
    prompt: { id: prompt.id, text: prompt.text },
    engine: row?.provider ?? query.engine ?? null,
    answer: row ? serializeAnswer(row) : null,
    engines: perProvider,
  };
}
