import { detects, intraclassCorrelation, smallestRealChange } from '../../analysis/sampling.ts';
import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { formatUsd, microsToUsd } from '../../money.ts';
import { SAMPLES_MAX } from '../common/index.ts';
import { planScan } from './plan.ts';
import type { SamplingPlanQuery } from './schemas.ts';

/**
 * GET /projects/:id/sampling-plan?detect=5: how many samples per prompt and
 * assistant a scan of the site needs for a move of `detect` points in
 * visibility to be called real at 95% (by the report's own interval and
 * test, src/analysis/sampling.ts), given its prompts, its assistants (its
 * saved scan settings) and the spread its past answers show, and what a scan
 * at that setting costs. Method: docs/analysis.md "How many samples".
 */

/** Past samples beyond this are not searched: a plan that needs more says so. */
const SEARCH_MAX = 100;

/** The site's latest month with answers: per prompt, answers that did not fail and those naming the brand, and failures. */
async function pastSpread(ctx: AppContext, siteId: number) {
  const latest = await ctx.db
    .selectFrom('rollupPromptPeriod')
    .select((eb) => eb.fn.max('start').as('start'))
    .where('siteId', '=', siteId)
    .where('period', '=', 'month')
    .executeTakeFirst();
  if (!latest?.start) return null;
  const rows = await ctx.db
    .selectFrom('rollupPromptPeriod')
    .select(['answers', 'failed', 'mentioned'])
    .where('siteId', '=', siteId)
    .where('period', '=', 'month')
    .where('start', '=', latest.start)
    .execute();
  const answered = rows.reduce((n, r) => n + r.answers - r.failed, 0);
  const answers = rows.reduce((n, r) => n + r.answers, 0);
  if (answered === 0) return null;
  return {
    month: latest.start,
    prompts: rows.filter((r) => r.answers > r.failed).length,
    answers: answered,
    share: rows.reduce((n, r) => n + r.mentioned, 0) / answered,
    failedShare: answers > 0 ? (answers - answered) / answers : 0,
    icc: intraclassCorrelation(rows.map((r) => [r.mentioned, r.answers - r.failed])),
  };
}

export async function samplingPlan(ctx: AppContext, site: SiteRow, query: SamplingPlanQuery) {
  const [plan, past] = await Promise.all([planScan(ctx, site, { saved: true, samples: 1 }), pastSpread(ctx, site.id)]);
  const prompts = plan.promptIds.length;
  const assistants = plan.providers.map((p) => p.provider);
  // No answers yet: the hardest case for a share (50%) and independent answers, said as assumed.
  const share = past?.share ?? 0.5;
  const icc = past?.icc ?? 0;
  const perAnswer = 1 - (past?.failedShare ?? 0);
  const perPrompt = (samples: number) => assistants.length * samples * perAnswer;
  const enough = (samples: number) => prompts > 0 && detects(prompts, perPrompt(samples), share, icc, query.detect);
  let needed: number | null = null;
  for (let n = 1; n <= SEARCH_MAX && needed === null; n++) if (enough(n)) needed = n;
  const options = Array.from({ length: SAMPLES_MAX }, (_, i) => {
    const samples = i + 1;
    const cost = plan.costMicros * samples;
    return {
      samples,
      answers: prompts * assistants.length * samples,
      smallestRealChange: prompts > 0 ? smallestRealChange(prompts, perPrompt(samples), share, icc) : null,
      detects: enough(samples),
      costUsd: microsToUsd(cost),
      cost: formatUsd(cost),
    };
  });
  const samples = needed !== null && needed <= SAMPLES_MAX ? needed : null;
  const chosen = options[(samples ?? SAMPLES_MAX) - 1] as (typeof options)[number];
  const note =
    prompts === 0
      ? 'The site has no active prompts: add prompts first.'
      : samples !== null
        ? `${samples} sample${samples > 1 ? 's' : ''} per prompt and assistant: a move of ${query.detect} points from ${Math.round(share * 1000) / 10}% would be called real.`
        : needed !== null
          ? `Scans ask at most ${SAMPLES_MAX} samples; ${needed} would be needed. Add prompts or assistants, or compare months (more answers each) instead of scans.`
          : `Even ${SEARCH_MAX} samples would not be enough with these prompts and assistants: add prompts, or look for larger moves.`;
  return {
    detect: query.detect,
    prompts,
    assistants,
    visibility: past ? Math.round(past.share * 1000) / 10 : null,
    spread: past
      ? {
          month: past.month,
          prompts: past.prompts,
          answers: past.answers,
          intraPromptCorrelation: past.icc === null ? null : Math.round(past.icc * 1000) / 1000,
        }
      : null,
    assumed: past === null || past.icc === null,
    samples,
    samplesNeeded: needed,
    estimate: { samples: chosen.samples, answers: chosen.answers, costUsd: chosen.costUsd, cost: chosen.cost },
    options,
    note,
  };
}
