import { sql } from 'kysely';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { previousPeriod, type Period, type PeriodQuery } from '../periods.ts';
import { addCounts, emptyCounts, headline, periodEcho, periodsWithData, resolvePeriod, siteCountsByPeriod, type SiteCounts } from './base.ts';
import { competitorRows, headToHead, sumCompetitor, type CompetitorCounts } from './competitors.ts';
import { promptCompetitorRows } from './period-rows.ts';

/** GET /projects/:id/competitors/:competitorId: one competitor against the brand. */

/** Prompts listed per group, and cited pages listed, at most. */
const PROMPTS_LISTED = 100;
const PAGES_LISTED = 50;

function paired(site: SiteCounts, c: CompetitorCounts) {
  const h = headline(site);
  const both = h.mentioned + c.mentioned;
  return {
    answered: h.answered,
    brand: { mentioned: h.mentioned, visibility: h.visibility, cited: h.ownCited, shareOfVoice: shareOfVoice(h.mentioned, both) },
    competitor: { mentioned: c.mentioned, visibility: visibility(c.mentioned, h.answered), cited: c.cited, shareOfVoice: shareOfVoice(c.mentioned, both) },
    ...headToHead(h.mentioned, c),
  };
}

async function byCategory(db: Db, siteId: number, competitorId: number, period: Period, start: string) {
  const { rows } = await sql<{ id: number; name: string; answered: number; brand: number; competitor: number }>`
    SELECT c.id, c.name, coalesce(b.answered, 0) AS answered, coalesce(b.mentioned, 0) AS brand, coalesce(x.mentioned, 0) AS competitor
      FROM categories c
      LEFT JOIN (SELECT pc.category_id, sum(r.answers - r.failed) AS answered, sum(r.mentioned) AS mentioned
                   FROM rollup_prompt_period r JOIN prompt_categories pc ON pc.prompt_id = r.prompt_id
                  WHERE r.site_id = ${siteId} AND r.period = ${period} AND r.start = ${start}
                  GROUP BY pc.category_id) b ON b.category_id = c.id
      LEFT JOIN (SELECT pc.category_id, sum(r.mentioned) AS mentioned
                   FROM (${promptCompetitorRows(siteId, competitorId, period, start)}) r JOIN prompt_categories pc ON pc.prompt_id = r.prompt_id
                  GROUP BY pc.category_id) x ON x.category_id = c.id
     WHERE c.site_id = ${siteId}
     ORDER BY lower(c.name), c.id`.execute(db);
  return rows.map((r) => {
    const answered = Number(r.answered);
    const brand = Number(r.brand);
    const competitor = Number(r.competitor);
    return {
      id: r.id,
      name: r.name,
      answered,
      brand: { mentioned: brand, visibility: visibility(brand, answered) },
      competitor: { mentioned: competitor, visibility: visibility(competitor, answered) },
    };
  });
}

/**
 * Prompts of the period split by who their answers named: both (in any of
 * its answers), only the brand, only the competitor; the first ones of each
 * group by text, with each group's count.
 */
async function promptSplit(db: Db, siteId: number, competitorId: number, period: Period, start: string) {
  const { rows } = await sql<{ id: number; text: string; grp: 'both' | 'onlyBrand' | 'onlyCompetitor'; total: number }>`
    SELECT id, text, grp, total FROM (
      SELECT p.id, p.text, g.grp,
             row_number() OVER (PARTITION BY g.grp ORDER BY lower(p.text), p.id) AS n,
             count(*) OVER (PARTITION BY g.grp) AS total
        FROM rollup_prompt_period b
        LEFT JOIN (${promptCompetitorRows(siteId, competitorId, period, start)}) x ON x.prompt_id = b.prompt_id
        JOIN prompts p ON p.id = b.prompt_id
       CROSS JOIN LATERAL (SELECT CASE WHEN b.mentioned > 0 AND x.mentioned > 0 THEN 'both' WHEN b.mentioned > 0 THEN 'onlyBrand' ELSE 'onlyCompetitor' END AS grp) g
       WHERE b.site_id = ${siteId} AND b.period = ${period} AND b.start = ${start} AND (b.mentioned > 0 OR x.mentioned > 0)) ranked
     WHERE n <= ${PROMPTS_LISTED}
     ORDER BY grp, n`.execute(db);
  const group = (g: (typeof rows)[number]['grp']) => rows.filter((r) => r.grp === g);
  const count = (g: (typeof rows)[number]['grp']) => Number(group(g)[0]?.total ?? 0);
  const list = (g: (typeof rows)[number]['grp']) => group(g).map((r) => ({ id: r.id, text: r.text }));
  return {
    counts: { both: count('both'), onlyBrand: count('onlyBrand'), onlyCompetitor: count('onlyCompetitor') },
    both: list('both'),
    onlyBrand: list('onlyBrand'),
    onlyCompetitor: list('onlyCompetitor'),
  };
}

export async function competitorDetail(ctx: AppContext, site: SiteRow, competitorId: number, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [competitor, periods, counts, rows, categories, prompts, pages] = await Promise.all([
    ctx.db.selectFrom('competitors').selectAll().where('id', '=', competitorId).where('siteId', '=', site.id).executeTakeFirst(),
    periodsWithData(ctx.db, site.id, p.period),
    siteCountsByPeriod(ctx.db, site.id, p.period, previousStart, p.start),
    competitorRows(ctx.db, site.id, p.period, [previousStart, p.start], competitorId),
    byCategory(ctx.db, site.id, competitorId, p.period, p.start),
    promptSplit(ctx.db, site.id, competitorId, p.period, p.start),
    ctx.db
      .selectFrom('rollupPagePeriod')
      .select(['url', 'answers as count'])
      .where('siteId', '=', site.id)
      .where('period', '=', p.period)
      .where('start', '=', p.start)
      .where('competitorId', '=', competitorId)
      .orderBy('answers', 'desc')
      .orderBy('url')
      .limit(PAGES_LISTED)
      .execute(),
  ]);
  if (!competitor) throw new NotFoundError(`No competitor with id ${competitorId}`);
  const siteSum = (start: string, provider?: string) =>
    counts.filter((r) => r.start === start && (provider === undefined || r.provider === provider)).reduce((acc, r) => addCounts(acc, r.counts), emptyCounts());
  return {
    ...periodEcho(p, periods),
    competitor: { id: competitor.id, name: competitor.name, domain: competitor.domain, aliases: competitor.aliases, color: competitor.color, logo: competitor.logo },
    current: paired(siteSum(p.start), sumCompetitor(rows, { start: p.start })),
    previous: paired(siteSum(previousStart), sumCompetitor(rows, { start: previousStart })),
    providers: PROVIDER_KEYS.filter((k) => counts.some((r) => r.start === p.start && r.provider === k)).map((k) => ({
      provider: k,
      name: providerEntry(k).name,
      ...paired(siteSum(p.start, k), sumCompetitor(rows, { start: p.start, provider: k })),
    })),
    categories,
    prompts,
    pages,
  };
}
