import { sql } from 'kysely';
import { shareOfVoice, visibility, type Stability } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow, Verdict } from '../../db/schema.ts';
import { periodEnd, periodIndexSql, periodWindow, type Period, type PeriodQuery } from './periods.ts';
import { eventsBetween } from '../sites/events.ts';
import { stabilityOf } from '../prompts/verdicts.ts';
import { emptyCounts, headline, periodEcho, periodsWithData, resolvePeriod } from './base.ts';
import { promptChanges } from './prompt-changes.ts';
import { windowCounts } from './report.ts';

/** GET /projects/:id/trends: ten periods ending with the one asked for. */

/** Verdict by strength: the code a period's best verdict is carried in. */
const BY_STRENGTH: Verdict[] = ['failed', 'missing', 'lost', 'named', 'cited'];

/**
 * Every active prompt with its verdict in each period of the window. The
 * window's rows come back as one small integer array per prompt (period
 * index x 8 + verdict strength): thousands of rows would cost more to parse
 * than to read.
 */
async function activePromptVerdicts(db: Db, siteId: number, period: Period, window: string[]) {
  const first = window[0] as string;
  const [prompts, cells] = await Promise.all([
    db.selectFrom('prompts').select(['id', 'text']).where('siteId', '=', siteId).where('status', '=', 'active').orderBy('id').execute(),
    sql<{ promptId: number; cells: number[] }>`
      SELECT r.prompt_id,
             array_agg(${periodIndexSql(period, first, sql.ref('r.start'))} * 8
                       + CASE WHEN r.cited > 0 THEN 4 WHEN r.named > 0 THEN 3 WHEN r.lost > 0 THEN 2 WHEN r.missing > 0 THEN 1 ELSE 0 END) AS cells
        FROM rollup_prompt_period r
       WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start >= ${first} AND r.start <= ${window[window.length - 1]}
       GROUP BY r.prompt_id`.execute(db),
  ]);
  const byPrompt = new Map(cells.rows.map((r) => [r.promptId, r.cells]));
  return prompts.map((p) => {
    const history = window.map((start) => ({ start, verdict: null as Verdict | null }));
    for (const cell of byPrompt.get(p.id) ?? []) {
      const square = history[Math.floor(cell / 8)];
      if (square) square.verdict = BY_STRENGTH[cell % 8] ?? null;
    }
    return { id: p.id, text: p.text, verdicts: history.map((h) => h.verdict), stability: stabilityOf(history) };
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
    sql<{ categoryId: number; start: string; answered: number; mentioned: number; competitorMentions: number }>`
      SELECT pc.category_id, r.start, sum(r.answers - r.failed) AS answered, sum(r.mentioned) AS mentioned, sum(r.competitor_mentions) AS competitor_mentions
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
      return { start, answered, mentioned, visibility: visibility(mentioned, answered), shareOfVoice: shareOfVoice(mentioned, mentioned + Number(r?.competitorMentions ?? 0)) };
    }),
  }));
}

export async function siteTrends(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const window = periodWindow(p.period, p.start);
  const withEvents = ctx.config.apiVariant.includes('B');
  const [periods, counts, prompts, changes, categories, events] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    windowCounts(ctx.db, site.id, p.period, window),
    activePromptVerdicts(ctx.db, site.id, p.period, window),
    promptChanges(ctx.db, site.id, p.period, p.start),
    categoryShares(ctx.db, site.id, p.period, window),
    withEvents ? eventsBetween(ctx.db, site.id, window[0] ?? p.start, periodEnd(p.period, p.start)) : null,
  ]);
  const listed = (s: Stability) => prompts.filter((x) => x.stability === s).map((x) => ({ id: x.id, text: x.text }));
  return {
    ...periodEcho(p, periods),
    window,
    shares: window.map((start) => ({ start, ...headline(counts.get(start)?.total ?? emptyCounts()) })),
    prompts,
    changes,
    categories,
    held: listed('held'),
    volatile: listed('volatile'),
    lost: listed('lost'),
    // Variant B draws the site's events dated inside the window on its charts.
    ...(events && { events }),
  };
}
