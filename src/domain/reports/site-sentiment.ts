import { sql } from 'kysely';
import { z } from 'zod';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import { preparedQuery } from '../../db/database.ts';
import type { SiteRow, Tone } from '../../db/schema.ts';
import { periodQuerySchema, previousPeriod, round3, providerParam, pagingShape } from '../common/index.ts';
import {
  addCounts,
  emptyCounts,
  hidden,
  percentOf,
  periodAndPreviousCountsJson,
  periodEcho,
  periodsJson,
  preparedRow,
  resolvePeriod,
  type CountsRow,
  type ReportPeriod,
  type SiteCounts,
} from './base.ts';
import { clusterJson, clusterOf, promptProviderRows, shareBounds } from './spread.ts';
import type { ClusterSums } from '../../analysis/index.ts';
import type { Db } from '../../db/database.ts';
import type { Period } from '../common/index.ts';

/** GET /projects/:id/sentiment: tone of the answers that name the brand. */

const TONES = ['positive', 'neutral', 'negative'] as const;

export const sentimentQuerySchema = periodQuerySchema.extend({
  answers: z
    .enum(['0', '1', 'true', 'false'], { error: 'answers must be 1 or 0' })
    .default('0')
    .transform((v) => v === '1' || v === 'true'),
  tone: z.enum(TONES, { error: `tone must be one of ${TONES.join(', ')}` }).optional(),
  engine: providerParam.optional(),
  ...pagingShape(50),
});
export type SentimentQuery = z.output<typeof sentimentQuerySchema>;

/** Each tone's sums over prompts (numerator: that tone's answers; denominator: answers with a tone, i.e. naming the brand). */
type ToneSpread = Record<(typeof TONES)[number], ClusterSums | undefined>;

/**
 * The tone shares' spread over prompts, keyed `start|provider` and, over
 * every assistant, `start|` (see promptProviderRows).
 */
async function toneSpreads(db: Db, siteId: number, period: Period, starts: string[]): Promise<Map<string, ToneSpread>> {
  const toned = '(x.pos + x.neu + x.neg)';
  const columns = sql`${clusterJson('x.pos', toned)} AS positive, ${clusterJson('x.neu', toned)} AS neutral, ${clusterJson('x.neg', toned)} AS negative`;
  const { rows } = await sql<{
    start: string;
    provider: string | null;
    positive: number[];
    neutral: number[];
    negative: number[];
  }>`
    WITH p AS MATERIALIZED (${promptProviderRows(siteId, period, starts)})
    SELECT x.start, x.provider, ${columns} FROM p x GROUP BY x.start, x.provider
    UNION ALL
    SELECT x.start, NULL, ${columns} FROM (SELECT start, prompt_id, sum(pos) AS pos, sum(neu) AS neu, sum(neg) AS neg FROM p GROUP BY start, prompt_id) x GROUP BY x.start`.execute(
    db,
  );
  return new Map(
    rows.map((r) => [
      `${r.start}|${r.provider ?? ''}`,
      { positive: clusterOf(r.positive), neutral: clusterOf(r.neutral), negative: clusterOf(r.negative) },
    ]),
  );
}

function tones(c: SiteCounts, spread: ToneSpread | undefined) {
  const answers = c.positive + c.neutral + c.negative;
  const pos = shareBounds(spread?.positive);
  const neu = shareBounds(spread?.neutral);
  const neg = shareBounds(spread?.negative);
  return {
    answers,
    positive: c.positive,
    neutral: c.neutral,
    negative: c.negative,
    positiveShare: percentOf(c.positive, answers),
    neutralShare: percentOf(c.neutral, answers),
    negativeShare: percentOf(c.negative, answers),
    positiveShareLow: pos.low,
    positiveShareHigh: pos.high,
    neutralShareLow: neu.low,
    neutralShareHigh: neu.high,
    negativeShareLow: neg.low,
    negativeShareHigh: neg.high,
    // Mean tone score of the answers naming the brand, in [-1, 1].
    score: answers > 0 ? round3(c.toneSum / answers) : null,
  };
}

/**
 * Two prepared statements side by side (see preparedRow): the counters with
 * the periods with data and, when asked for, the page of answers. As three
 * queries planned on every call, a week with its answers took about 2 ms on
 * the bench site, mostly planning; now about 0.6 ms.
 */
export async function siteSentiment(ctx: AppContext, site: SiteRow, query: SentimentQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [{ periods, counts: rows }, answers, spreads] = await Promise.all([
    preparedRow(
      ctx.db,
      `sentiment-counts-${p.period}`,
      sql<{ periods: string[]; counts: CountsRow[] }>`
      SELECT ${periodsJson(site.id, p.period)} AS periods, ${periodAndPreviousCountsJson(site.id, p, previousStart)} AS counts`,
    ),
    query.answers ? answerList(ctx, site.id, p, query) : Promise.resolve(null),
    toneSpreads(ctx.db, site.id, p.period, [previousStart, p.start]),
  ]);
  const sum = (start: string, provider?: string) =>
    rows
      .filter((r) => r.start === start && (provider === undefined || r.provider === provider))
      .reduce((acc, r) => addCounts(acc, r), emptyCounts());
  const current = sum(p.start);
  const providers = PROVIDER_KEYS.filter((k) => rows.some((r) => r.start === p.start && r.provider === k)).map((k) => ({
    provider: k,
    name: providerEntry(k).name,
    ...tones(sum(p.start, k), spreads.get(`${p.start}|${k}`)),
  }));
  const result = {
    ...periodEcho(p, periods),
    overall: tones(current, spreads.get(`${p.start}|`)),
    previous: tones(sum(previousStart), spreads.get(`${previousStart}|`)),
    providers,
  };
  if (!answers) return result;
  const scope = query.engine ? sum(p.start, query.engine) : current;
  // The list's total comes from the rollups: answers naming the brand are exactly those with a tone.
  const total = query.tone ? scope[query.tone] : scope.positive + scope.neutral + scope.negative;
  return { ...result, answers, total, page: query.page, perPage: query.perPage };
}

interface ListedAnswer {
  answerId: number;
  promptId: number;
  prompt: string;
  provider: string;
  model: string;
  askedAt: Date;
  brandRank: number | null;
  tone: Tone;
  score: number | null;
  quote: string | null;
}

/**
 * One page of the period's answers naming the brand, newest first (the
 * partial index of migration 0700). Prepared under one name per combination
 * of filters, as each gives another text; with the page size a parameter
 * the planner would plan every call (see `hidden`).
 */
async function answerList(
  ctx: AppContext,
  siteId: number,
  p: ReportPeriod,
  query: SentimentQuery,
): Promise<ListedAnswer[]> {
  const { sql: text, parameters } = sql`
    SELECT f.answer_id AS "answerId", f.prompt_id AS "promptId", pr.text AS prompt, f.provider, a.model, a.asked_at AS "askedAt",
           f.brand_rank AS "brandRank", f.tone, f.tone_score AS score, f.quote
      FROM answer_facts f JOIN answers a ON a.id = f.answer_id AND a.month = f.month JOIN prompts pr ON pr.id = f.prompt_id
     WHERE f.site_id = ${hidden(siteId, 'int')} AND f.mentioned AND f.day >= ${hidden(p.start, 'date')} AND f.day <= ${hidden(p.end, 'date')}
           ${query.tone ? sql`AND f.tone = ${hidden(query.tone, 'text')}` : sql``} ${query.engine ? sql`AND f.provider = ${hidden(query.engine, 'text')}` : sql``}
     ORDER BY f.day DESC, f.answer_id DESC
     LIMIT ${hidden(query.perPage, 'int')} OFFSET ${hidden((query.page - 1) * query.perPage, 'int')}`.compile(ctx.db);
  const name = `sentiment-answers${query.tone ? '-tone' : ''}${query.engine ? '-engine' : ''}`;
  return preparedQuery<ListedAnswer>(ctx.db, name, text, [...parameters]);
}
