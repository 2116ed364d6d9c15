import { z } from 'zod';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { SiteRow, Tone } from '../../db/schema.ts';
import { periodQuerySchema, previousPeriod } from '../periods.ts';
import { addCounts, emptyCounts, percentOf, periodEcho, periodsWithData, resolvePeriod, round3, siteCountsByPeriod, type ReportPeriod, type SiteCounts } from './base.ts';
import { engineParam, pagingShape } from './query.ts';

/** GET /projects/:id/sentiment: tone of the answers that name the brand. */

const TONES = ['positive', 'neutral', 'negative'] as const;

export const sentimentQuerySchema = periodQuerySchema.extend({
  answers: z.enum(['0', '1', 'true', 'false'], { error: 'answers must be 1 or 0' }).default('0').transform((v) => v === '1' || v === 'true'),
  tone: z.enum(TONES, { error: `tone must be one of ${TONES.join(', ')}` }).optional(),
  engine: engineParam.optional(),
  ...pagingShape(50),
});
export type SentimentQuery = z.output<typeof sentimentQuerySchema>;

function tones(c: SiteCounts) {
  const answers = c.positive + c.neutral + c.negative;
  return {
    answers,
    positive: c.positive,
    neutral: c.neutral,
    negative: c.negative,
    positiveShare: percentOf(c.positive, answers),
    neutralShare: percentOf(c.neutral, answers),
    negativeShare: percentOf(c.negative, answers),
    // Mean tone score of the answers naming the brand, in [-1, 1].
    score: answers > 0 ? round3(c.toneSum / answers) : null,
  };
}

export async function siteSentiment(ctx: AppContext, site: SiteRow, query: SentimentQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [periods, rows, answers] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    siteCountsByPeriod(ctx.db, site.id, p.period, previousStart, p.start),
    query.answers ? answerList(ctx, site.id, p, query) : Promise.resolve(null),
  ]);
  const sum = (start: string, provider?: string) =>
    rows.filter((r) => r.start === start && (provider === undefined || r.provider === provider)).reduce((acc, r) => addCounts(acc, r.counts), emptyCounts());
  const current = sum(p.start);
  const providers = PROVIDER_KEYS.filter((k) => rows.some((r) => r.start === p.start && r.provider === k)).map((k) => ({ provider: k, name: providerEntry(k).name, ...tones(sum(p.start, k)) }));
  const result = { ...periodEcho(p, periods), overall: tones(current), previous: tones(sum(previousStart)), providers };
  if (!answers) return result;
  const scope = query.engine ? sum(p.start, query.engine) : current;
  // The list's total comes from the rollups: answers naming the brand are exactly those with a tone.
  const total = query.tone ? scope[query.tone] : scope.positive + scope.neutral + scope.negative;
  return { ...result, answers, total, page: query.page, perPage: query.perPage };
}

/** One page of the period's answers naming the brand, newest first. */
async function answerList(ctx: AppContext, siteId: number, p: ReportPeriod, query: SentimentQuery) {
  let list = ctx.db
    .selectFrom('answerFacts as f')
    .innerJoin('answers as a', 'a.id', 'f.answerId')
    .innerJoin('prompts as pr', 'pr.id', 'f.promptId')
    .select(['f.answerId', 'f.promptId', 'pr.text as prompt', 'f.provider', 'a.model', 'a.askedAt', 'f.tone', 'f.toneScore', 'f.quote', 'f.brandRank'])
    .where('f.siteId', '=', siteId)
    .where('f.mentioned', '=', true)
    .where('f.day', '>=', p.start)
    .where('f.day', '<=', p.end);
  if (query.tone) list = list.where('f.tone', '=', query.tone);
  if (query.engine) list = list.where('f.provider', '=', query.engine);
  const rows = await list
    .orderBy('f.day', 'desc')
    .orderBy('f.answerId', 'desc')
    .limit(query.perPage)
    .offset((query.page - 1) * query.perPage)
    .execute();
  return rows.map((a) => ({
    answerId: a.answerId,
    promptId: a.promptId,
    prompt: a.prompt,
    provider: a.provider,
    model: a.model,
    askedAt: a.askedAt,
    brandRank: a.brandRank,
    tone: a.tone as Tone,
    score: a.toneScore,
    quote: a.quote,
  }));
}
