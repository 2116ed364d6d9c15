import { sql } from 'kysely';
import { shareOfVoice, stabilityChange, visibility, type PeriodCounts, type Stability } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow, Verdict } from '../../db/schema.ts';
import { periodEnd, periodIndexSql, periodWindow, type Period, type PeriodQuery } from '../common/index.ts';
import { siteEventsBetween } from '../sites/index.ts';
import { crawlerHitsByPeriod } from './crawler-hits.ts';
import { stabilityOf } from '../prompts/index.ts';
import { emptyCounts, periodEcho, periodsWithData, resolvePeriod } from './base.ts';
import { promptChanges } from './prompt-changes.ts';
import { headlineWithIntervals, windowCounts } from './report.ts';
import {
  estimatesOf,
  PROMPT_PERIOD_SPREAD,
  shareIntervals,
  siteSpreadByPeriod,
  spreadOf,
  type SpreadRow,
} from './spread.ts';

/** GET /projects/:id/trends: ten periods ending with the one asked for. */

/** Verdict by strength: the code a period's best verdict is carried in. */
const BY_STRENGTH: Verdict[] = ['failed', 'missing', 'lost', 'named', 'cited'];

/**
 * Every active prompt with its verdict in each period of the window. The
 * window's rows come back as small integer arrays per prompt (period index
 * x 8 + verdict strength, and each period's named and answered counts, in
 * the same order): thousands of rows would cost more to parse than to read.
 */
async function activePromptVerdicts(db: Db, siteId: number, period: Period, window: string[]) {
  const first = window[0] as string;
  const [prompts, cells] = await Promise.all([
    db
      .selectFrom('prompts')
      .select(['id', 'text'])
      .where('siteId', '=', siteId)
      .where('status', '=', 'active')
      .orderBy('id')
      .execute(),
    sql<{ promptId: number; cells: number[]; named: number[]; answered: number[] }>`
      SELECT r.prompt_id,
             array_agg(${periodIndexSql(period, first, sql.ref('r.start'))} * 8
                       + CASE WHEN r.cited > 0 THEN 4 WHEN r.named > 0 THEN 3 WHEN r.lost > 0 THEN 2 WHEN r.missing > 0 THEN 1 ELSE 0 END) AS cells,
             -- The aggregates of one group read its rows in one pass, so the three arrays are in the same order.
             array_agg(r.cited + r.named) AS named, array_agg(r.answers - r.failed) AS answered
        FROM rollup_prompt_period r
       WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start >= ${first} AND r.start <= ${window[window.length - 1]}
       GROUP BY r.prompt_id`.execute(db),
  ]);
  const byPrompt = new Map(cells.rows.map((r) => [r.promptId, r]));
  return prompts.map((p) => {
    const history = window.map((start) => ({ start, verdict: null as Verdict | null }));
    const counts: PeriodCounts[] = window.map(() => ({ named: 0, answered: 0 }));
    const row = byPrompt.get(p.id);
    row?.cells.forEach((cell, k) => {
      const i = Math.floor(cell / 8);
      const square = history[i];
      if (square) square.verdict = BY_STRENGTH[cell % 8] ?? null;
      if (counts[i]) counts[i] = { named: row.named[k] ?? 0, answered: row.answered[k] ?? 0 };
    });
    const stability = stabilityOf(history);
    return {
      id: p.id,
      text: p.text,
      verdicts: history.map((h) => h.verdict),
      stability,
      stabilityChange: stability === null ? null : stabilityChange(counts),
    };
  });
}

/** Visibility and share of voice per category and period, over the prompts in each category now. */
async function categoryShares(db: Db, siteId: number, period: Period, window: string[]) {
  const [categories, rows] = await Promise.all([
    db
      .selectFrom('categories')
      .select(['id', 'name'])
      .where('siteId', '=', siteId)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .execute(),
    sql<
      SpreadRow & {
        categoryId: number;
        start: string;
        answered: number;
        mentioned: number;
        competitorMentions: number;
        ownCited: number;
      }
    >`
      SELECT pc.category_id, r.start, sum(r.answers - r.failed) AS answered, sum(r.mentioned) AS mentioned, sum(r.competitor_mentions) AS competitor_mentions,
             sum(r.cited) AS own_cited, ${PROMPT_PERIOD_SPREAD}
        FROM rollup_prompt_period r
        JOIN prompt_categories pc ON pc.prompt_id = r.prompt_id
       WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start >= ${window[0]} AND r.start <= ${window[window.length - 1]}
       GROUP BY pc.category_id, r.start`.execute(db),
  ]);
  const byKey = new Map(rows.rows.map((r) => [`${r.categoryId}|${r.start}`, r]));
  return categories.map((c) => ({
    id: c.id,
    name: c.name,
    shares: window.map((start) => {
      const r = byKey.get(`${c.id}|${start}`);
      const answered = Number(r?.answered ?? 0);
      const mentioned = Number(r?.mentioned ?? 0);
      const intervals = shareIntervals(Number(r?.ownCited ?? 0), answered, estimatesOf(r ? spreadOf(r) : undefined));
      return {
        start,
        answered,
        mentioned,
        visibility: visibility(mentioned, answered),
        shareOfVoice: shareOfVoice(mentioned, mentioned + Number(r?.competitorMentions ?? 0)),
        ...intervals,
      };
    }),
  }));
}

export async function siteTrends(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const window = periodWindow(p.period, p.start);
  const withEvents = ctx.config.apiVariant.includes('B');
  const [periods, counts, prompts, changes, categories, events, spreads, crawlerHits] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    windowCounts(ctx.db, site.id, p.period, window),
    activePromptVerdicts(ctx.db, site.id, p.period, window),
    promptChanges(ctx.db, site.id, p.period, p.start),
    categoryShares(ctx.db, site.id, p.period, window),
    withEvents ? siteEventsBetween(ctx.db, site.id, window[0] ?? p.start, periodEnd(p.period, p.start)) : null,
    siteSpreadByPeriod(ctx.db, site.id, p.period, window[0] as string, p.start),
    crawlerHitsByPeriod(ctx.db, site.id, p.period, window),
  ]);
  // `real`: the latest period departs from the earlier ones by more than noise (a real loss, or a held share that moved).
  const listed = (s: Stability) =>
    prompts
      .filter((x) => x.stability === s)
      .map((x) => ({ id: x.id, text: x.text, real: x.stabilityChange?.real ?? null }));
  return {
    ...periodEcho(p, periods),
    window,
    shares: window.map((start) => ({
      start,
      ...headlineWithIntervals(counts.get(start)?.total ?? emptyCounts(), estimatesOf(spreads.get(start))),
    })),
    prompts,
    changes,
    categories,
    held: listed('held'),
    volatile: listed('volatile'),
    lost: listed('lost'),
    crawlerHits,
    // Variant B draws the site's events dated inside the window on its charts.
    ...(events && { events }),
  };
}
