import { sql } from 'kysely';
import { shareOfVoice, visibility } from '../../analysis/index.ts';
import { PROVIDER_KEYS, providerEntry } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { previousPeriod, type PeriodQuery } from '../common/index.ts';
import {
  addCounts,
  emptyCounts,
  headline,
  hidden,
  periodAndPreviousCountsJson,
  periodEcho,
  periodsJson,
  preparedRow,
  resolvePeriod,
  type CountsRow,
  type ReportPeriod,
  type SiteCounts,
} from './base.ts';
import { headToHead, sumCompetitor, type CompetitorCounts } from './competitors.ts';
import { promptCompetitorRows } from './period-rows.ts';
import {
  pairJson,
  pairOf,
  promptProviderCompetitorRows,
  promptProviderRows,
  shareBounds,
  type PairSpread,
} from './spread.ts';

/**
 * GET /projects/:id/competitors/:competitorId: one competitor against the brand.
 *
 * Two prepared statements (see preparedRow) run side by side, each answering
 * one row of JSON columns: the prompt split, which sorts the period's prompts
 * by text, and everything else. It was seven small queries whose fixed costs
 * outweighed their reads: each planned on every call and run on its own pooled
 * connection, the per-category and the per-prompt ones each reading the
 * period's per-prompt rows. On the bench site a week went from about 3.6 ms
 * to 1.8 ms (p50). Two statements rather than one use both cores of a small
 * machine (about 2.0 against 2.6 ms at p25 there), at the price of reading
 * the per-prompt rows (`j`) in each.
 */

/** Prompts listed per group, and cited pages listed, at most. */
const PROMPTS_LISTED = 100;
const PAGES_LISTED = 50;

interface DetailRow {
  competitor: {
    id: number;
    name: string;
    domain: string | null;
    aliases: string[];
    color: string | null;
    logo: string | null;
  } | null;
  periods: string[];
  counts: CountsRow[];
  rows: (CompetitorCounts & { competitorId: number; start: string; provider: string })[];
  categories: { id: number; name: string; answered: number; brand: number; competitor: number; sums: number[] }[];
  pages: { url: string; count: number }[];
}

interface SplitRow {
  prompts: { group: number; total: number; ids: number[]; texts: string[] }[];
}

/**
 * `j`: the period's prompts (those with answers, and any the competitor rows
 * name) with answers that did not fail, answers naming the brand, answers
 * naming the competitor.
 */
function periodPrompts(siteId: number, competitorId: number, p: ReportPeriod) {
  return sql`j AS MATERIALIZED (
      SELECT prompt_id, b.prompt_id IS NOT NULL AS asked, coalesce(b.answers - b.failed, 0) AS answered,
             coalesce(b.mentioned, 0) AS brand, coalesce(x.mentioned, 0) AS competitor
        FROM (SELECT prompt_id, answers, failed, mentioned FROM rollup_prompt_period
               WHERE site_id = ${hidden(siteId, 'int')} AND period = ${sql.lit(p.period)} AND start = ${hidden(p.start, 'date')}) b
        FULL JOIN (${promptCompetitorRows(siteId, competitorId, p.period, p.start)}) x USING (prompt_id))`;
}

/**
 * Everything but the prompt split. Both statements are prepared under one
 * name per period kind, as the kind is written into their text (and a day
 * reads the per-prompt competitor rows from that day's facts, see
 * ./period-rows.ts); their values are hidden from the planner (see `hidden`).
 */
function detailQuery(siteId: number, competitorId: number, p: ReportPeriod, previousStart: string) {
  const site = hidden(siteId, 'int');
  const competitor = hidden(competitorId, 'int');
  const start = hidden(p.start, 'date');
  return sql<DetailRow>`
    WITH ${periodPrompts(siteId, competitorId, p)},
    -- The site's categories and their prompts, links read per category through its index: OFFSET 0 keeps the subquery
    -- from being flattened, as with one large site in the table a category's average number of links made Postgres
    -- scan every site's links instead.
    links AS MATERIALIZED (
      SELECT c.id, c.name, pc.prompt_id FROM categories c
        LEFT JOIN LATERAL (SELECT prompt_id FROM prompt_categories WHERE category_id = c.id OFFSET 0) pc ON true
       WHERE c.site_id = ${site})
    SELECT
      (SELECT json_build_object('id', id, 'name', name, 'domain', domain, 'aliases', aliases, 'color', color, 'logo', logo)
         FROM competitors WHERE id = ${competitor} AND site_id = ${site}) AS competitor,
      ${periodsJson(siteId, p.period)} AS periods,
      -- Site counters per provider of this period and the one before.
      ${periodAndPreviousCountsJson(siteId, p, previousStart)} AS counts,
      (SELECT coalesce(json_agg(r), '[]') FROM (
         SELECT competitor_id AS "competitorId", start, provider, mentioned, cited, both_named AS "bothNamed", brand_ahead AS "brandAhead",
                competitor_ahead AS "competitorAhead"
           FROM rollup_competitor_period
          WHERE site_id = ${site} AND period = ${sql.lit(p.period)} AND start IN (${hidden(previousStart, 'date')}, ${start}) AND competitor_id = ${competitor}) r) AS rows,
      -- Every category, over the prompts in it now.
      (SELECT coalesce(json_agg(json_build_object('id', s.id, 'name', s.name, 'answered', s.answered, 'brand', s.brand, 'competitor', s.competitor, 'sums', s.sums)
                                ORDER BY lower(s.name), s.id), '[]')
         FROM (SELECT l.id, l.name, coalesce(sum(j.answered), 0) AS answered, coalesce(sum(j.brand), 0) AS brand, coalesce(sum(j.competitor), 0) AS competitor,
                      -- The categories' intervals: each prompt's counts summed (see pairJson).
                      ${pairJson('coalesce(j.answered, 0)', 'coalesce(j.brand, 0)', 'coalesce(j.competitor, 0)')} AS sums
                 FROM links l LEFT JOIN j ON j.prompt_id = l.prompt_id
                GROUP BY l.id, l.name) s) AS categories,
      (SELECT coalesce(json_agg(g ORDER BY g.count DESC, g.url), '[]') FROM (
         SELECT url, answers AS count FROM rollup_page_period
          WHERE site_id = ${site} AND period = ${sql.lit(p.period)} AND start = ${start} AND competitor_id = ${competitor}
          ORDER BY answers DESC, url LIMIT ${sql.lit(PAGES_LISTED)}) g) AS pages`;
}

/**
 * Prompts with answers in the period split by who their answers named (any
 * of them): per group (0 both, 1 only the brand, 2 only the competitor) its
 * count and its first prompts by text.
 */
function splitQuery(siteId: number, competitorId: number, p: ReportPeriod) {
  return sql<SplitRow>`
    WITH ${periodPrompts(siteId, competitorId, p)}
    SELECT coalesce(json_agg(json_build_object('group', grp, 'total', total, 'ids', ids, 'texts', texts)), '[]') AS prompts FROM (
      SELECT grp, max(total) AS total, array_agg(id ORDER BY n) AS ids, array_agg(text ORDER BY n) AS texts FROM (
        SELECT p.id, p.text, j.grp, row_number() OVER (PARTITION BY j.grp ORDER BY lower(p.text), p.id) AS n, count(*) OVER (PARTITION BY j.grp) AS total
          FROM (SELECT prompt_id, CASE WHEN brand > 0 AND competitor > 0 THEN 0 WHEN brand > 0 THEN 1 ELSE 2 END AS grp
                  FROM j WHERE asked AND (brand > 0 OR competitor > 0)) j
          JOIN prompts p ON p.id = j.prompt_id AND p.site_id = ${hidden(siteId, 'int')}) ranked
       WHERE n <= ${sql.lit(PROMPTS_LISTED)}
       GROUP BY grp) g`;
}

/**
 * Per (period, assistant) and per period over every assistant (provider
 * null), the sums behind the paired numbers' intervals: each prompt's
 * answers that did not fail, naming the brand, naming the competitor.
 */
async function pairSpreads(
  ctx: AppContext,
  siteId: number,
  competitorId: number,
  period: ReportPeriod['period'],
  starts: string[],
) {
  const { rows } = await sql<{ start: string; provider: string | null; sums: number[] }>`
    WITH x AS MATERIALIZED (
      SELECT p.start, p.provider, p.prompt_id, p.a, p.m, coalesce(c.mentioned, 0) AS y
        FROM (${promptProviderRows(siteId, period, starts)}) p
        LEFT JOIN (${promptProviderCompetitorRows(siteId, period, starts, competitorId)}) c
          -- Byte-wise: a hash join, not a sort by collated name (see competitors.ts).
          ON c.start = p.start AND c.prompt_id = p.prompt_id AND c.provider COLLATE "C" = p.provider COLLATE "C")
    SELECT x.start, x.provider, ${pairJson('x.a', 'x.m', 'x.y')} AS sums FROM x GROUP BY x.start, x.provider
    UNION ALL
    SELECT z.start, NULL, ${pairJson('z.a', 'z.m', 'z.y')} FROM (SELECT start, prompt_id, sum(a) AS a, sum(m) AS m, sum(y) AS y FROM x GROUP BY start, prompt_id) z GROUP BY z.start`.execute(
    ctx.db,
  );
  return new Map(rows.map((r) => [`${r.start}|${r.provider ?? ''}`, pairOf(r.sums)]));
}

/** `visibilityLow`, `visibilityHigh`, `shareOfVoiceLow`, `shareOfVoiceHigh` of one side. */
function sideBounds(
  visibility: PairSpread['brandVisibility'] | undefined,
  voice: PairSpread['brandVoice'] | undefined,
) {
  const v = shareBounds(visibility);
  const s = shareBounds(voice);
  return { visibilityLow: v.low, visibilityHigh: v.high, shareOfVoiceLow: s.low, shareOfVoiceHigh: s.high };
}

function paired(site: SiteCounts, c: CompetitorCounts, spread: PairSpread | undefined) {
  const h = headline(site);
  const both = h.mentioned + c.mentioned;
  return {
    answered: h.answered,
    brand: {
      mentioned: h.mentioned,
      visibility: h.visibility,
      cited: h.ownCited,
      shareOfVoice: shareOfVoice(h.mentioned, both),
      ...sideBounds(spread?.brandVisibility, spread?.brandVoice),
    },
    competitor: {
      mentioned: c.mentioned,
      visibility: visibility(c.mentioned, h.answered),
      cited: c.cited,
      shareOfVoice: shareOfVoice(c.mentioned, both),
      ...sideBounds(spread?.competitorVisibility, spread?.competitorVoice),
    },
    ...headToHead(h.mentioned, c),
  };
}

function promptSplit(rows: SplitRow['prompts']) {
  const [both, onlyBrand, onlyCompetitor] = [0, 1, 2].map((n) => rows.find((r) => r.group === n));
  const list = (g: SplitRow['prompts'][number] | undefined) =>
    g ? g.ids.map((id, k) => ({ id, text: g.texts[k] as string })) : [];
  return {
    counts: { both: both?.total ?? 0, onlyBrand: onlyBrand?.total ?? 0, onlyCompetitor: onlyCompetitor?.total ?? 0 },
    both: list(both),
    onlyBrand: list(onlyBrand),
    onlyCompetitor: list(onlyCompetitor),
  };
}

export async function competitorDetail(ctx: AppContext, site: SiteRow, competitorId: number, query: PeriodQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const previousStart = previousPeriod(p.period, p.start);
  const [{ competitor, periods, counts, rows, categories, pages }, { prompts }, spreads] = await Promise.all([
    preparedRow(ctx.db, `competitor-detail-${p.period}`, detailQuery(site.id, competitorId, p, previousStart)),
    preparedRow(ctx.db, `competitor-detail-prompts-${p.period}`, splitQuery(site.id, competitorId, p)),
    pairSpreads(ctx, site.id, competitorId, p.period, [previousStart, p.start]),
  ]);
  if (!competitor) throw new NotFoundError(`No competitor with id ${competitorId}`);
  const siteSum = (start: string, provider?: string) =>
    counts
      .filter((r) => r.start === start && (provider === undefined || r.provider === provider))
      .reduce((acc, r) => addCounts(acc, r), emptyCounts());
  return {
    ...periodEcho(p, periods),
    competitor: {
      id: competitor.id,
      name: competitor.name,
      domain: competitor.domain,
      aliases: competitor.aliases,
      color: competitor.color,
      logo: competitor.logo,
    },
    current: paired(siteSum(p.start), sumCompetitor(rows, { start: p.start }), spreads.get(`${p.start}|`)),
    previous: paired(
      siteSum(previousStart),
      sumCompetitor(rows, { start: previousStart }),
      spreads.get(`${previousStart}|`),
    ),
    providers: PROVIDER_KEYS.filter((k) => counts.some((r) => r.start === p.start && r.provider === k)).map((k) => ({
      provider: k,
      name: providerEntry(k).name,
      ...paired(
        siteSum(p.start, k),
        sumCompetitor(rows, { start: p.start, provider: k }),
        spreads.get(`${p.start}|${k}`),
      ),
    })),
    categories: categories.map((c) => {
      const spread = pairOf(c.sums);
      const b = shareBounds(spread?.brandVisibility);
      const x = shareBounds(spread?.competitorVisibility);
      return {
        id: c.id,
        name: c.name,
        answered: c.answered,
        brand: {
          mentioned: c.brand,
          visibility: visibility(c.brand, c.answered),
          visibilityLow: b.low,
          visibilityHigh: b.high,
        },
        competitor: {
          mentioned: c.competitor,
          visibility: visibility(c.competitor, c.answered),
          visibilityLow: x.low,
          visibilityHigh: x.high,
        },
      };
    }),
    prompts: promptSplit(prompts),
    pages,
  };
}
