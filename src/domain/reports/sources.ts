import { sql } from 'kysely';
import { z } from 'zod';
import { PROVIDER_KEYS } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { periodQuerySchema, SITE_TYPES, type Period, pagingShape } from '../common/index.ts';
import { ownPagePromptRows, promptSiteTypeRows, promptSourceRows } from './period-rows.ts';
import type { ClusterSums } from '../../analysis/index.ts';
import { clusterJson, clusterOf, shareBounds } from './spread.ts';
import {
  addCounts,
  emptyCounts,
  headline,
  percentOf,
  periodEcho,
  periodsWithData,
  resolvePeriod,
  siteCountsByPeriod,
} from './base.ts';

/** GET /projects/:id/sources: cited domains and the brand's own pages. */

export const sourcesQuerySchema = periodQuerySchema.extend({
  siteType: z.enum(SITE_TYPES, { error: `siteType must be one of ${SITE_TYPES.join(', ')}` }).optional(),
  ...pagingShape(50),
});
export type SourcesQuery = z.output<typeof sourcesQuerySchema>;

/** Own pages listed, and prompts listed per page, at most. */
const OWN_PAGES = 200;
const PROMPTS_PER_PAGE = 10;

interface SourceRow {
  domain: string;
  siteType: string;
  answers: number;
  namesBrand: number;
  citations: number;
  /** clusterJson of names_brand over answers citing the domain, per prompt. */
  brandSums: number[] | null;
  /** [Σy, Σy², Σy·n]: answers citing the domain (y) against answers that did not fail (n), per prompt. */
  shareSums: number[] | null;
  /** [Σn, Σn², prompts with n > 0] of answers that did not fail. */
  answeredSums: number[] | null;
}

/** A cited domain with its `namesBrand` interval (answers naming the brand among those citing it, clustered by prompt). */
function sourceItem(r: SourceRow) {
  const b = shareBounds(clusterOf(r.brandSums));
  return {
    domain: r.domain,
    siteType: r.siteType,
    count: r.answers,
    citations: r.citations,
    namesBrand: percentOf(r.namesBrand, r.answers),
    namesBrandLow: b.low,
    namesBrandHigh: b.high,
  };
}

/** `share` (percent of answered answers citing the domain) with its interval. */
function shareOf(r: SourceRow, answered: number) {
  const [n, nn, clusters] = (r.answeredSums ?? [0, 0, 0]).map(Number) as [number, number, number];
  const [y, yy, yn] = (r.shareSums ?? [0, 0, 0]).map(Number) as [number, number, number];
  const b = shareBounds(n > 0 ? { y, n, yy, yn, nn, clusters } : undefined);
  return { share: percentOf(r.answers, answered), shareLow: b.low, shareHigh: b.high };
}

/**
 * One page of a period's cited domains, most cited first, each with the
 * sums behind its intervals, read from the per-prompt source rows of just
 * the listed domains (see ./period-rows.ts).
 */
async function sourcePage(
  db: Db,
  siteId: number,
  period: Period,
  start: string,
  page: { siteType?: string; limit: number; offset: number },
): Promise<SourceRow[]> {
  const { rows } = await sql<SourceRow>`
    WITH top AS MATERIALIZED (
      SELECT domain, site_type, answers, names_brand, citations FROM rollup_source_period
       WHERE site_id = ${siteId} AND period = ${period} AND start = ${start} ${page.siteType ? sql`AND site_type = ${page.siteType}` : sql``}
       ORDER BY answers DESC, domain, site_type LIMIT ${page.limit} OFFSET ${page.offset}),
    s AS (SELECT s.domain, s.site_type, s.prompt_id, s.answers, s.names_brand FROM (${promptSourceRows(siteId, period, start)}) s JOIN top USING (domain, site_type)),
    answered AS MATERIALIZED (SELECT prompt_id, answers - failed AS n FROM rollup_prompt_period WHERE site_id = ${siteId} AND period = ${period} AND start = ${start}),
    sums AS (
      SELECT s.domain, s.site_type, ${clusterJson('s.names_brand', 's.answers')} AS brand_sums,
             json_build_array(sum(s.answers), sum(s.answers::float8 * s.answers), sum(s.answers::float8 * coalesce(a.n, 0))) AS share_sums
        FROM s LEFT JOIN answered a USING (prompt_id) GROUP BY s.domain, s.site_type)
    SELECT top.domain, top.site_type, top.answers, top.names_brand, top.citations, sums.brand_sums, sums.share_sums,
           (SELECT json_build_array(coalesce(sum(n), 0), coalesce(sum(n::float8 * n), 0), count(*) FILTER (WHERE n > 0)) FROM answered) AS answered_sums
      FROM top LEFT JOIN sums USING (domain, site_type)
     ORDER BY top.answers DESC, top.domain, top.site_type`.execute(db);
  return rows;
}

/**
 * Each site type's citations per prompt against all citations per prompt:
 * the sums of its `share` interval, keyed by site type.
 */
async function siteTypeSpreads(
  db: Db,
  siteId: number,
  period: Period,
  start: string,
): Promise<Map<string, ClusterSums>> {
  const { rows } = await sql<{ siteType: string | null; sums: number[] }>`
    WITH t AS MATERIALIZED (SELECT s.site_type, s.prompt_id, s.citations AS y FROM (${promptSiteTypeRows(siteId, period, start)}) s),
    n AS (SELECT prompt_id, sum(y) AS n FROM t GROUP BY prompt_id)
    SELECT t.site_type, json_build_array(sum(t.y), sum(t.y * t.y), sum(t.y * n.n)) AS sums FROM t JOIN n USING (prompt_id) GROUP BY t.site_type
    UNION ALL
    SELECT NULL, json_build_array(coalesce(sum(n), 0), coalesce(sum(n * n), 0), count(*) FILTER (WHERE n > 0)) FROM n`.execute(
    db,
  );
  const whole = rows.find((r) => r.siteType === null)?.sums.map(Number) ?? [0, 0, 0];
  const [n, nn, clusters] = whole as [number, number, number];
  return new Map(
    rows.flatMap((r) => {
      if (r.siteType === null) return [];
      const [y, yy, yn] = r.sums.map(Number) as [number, number, number];
      return [[r.siteType, { y, n, yy, yn, nn, clusters }]];
    }),
  );
}

function sourceRows(db: Db, siteId: number, period: Period, start: string) {
  return db
    .selectFrom('rollupSourcePeriod')
    .where('siteId', '=', siteId)
    .where('period', '=', period)
    .where('start', '=', start);
}

/** The most cited domains of a period (the report's "most cited sources"). */
export async function topSources(db: Db, siteId: number, period: Period, start: string, limit: number) {
  return (await sourcePage(db, siteId, period, start, { limit, offset: 0 })).map(sourceItem);
}

/** The brand's own pages, most cited first, each with its top prompts and every assistant linking to it (aggregated in SQL). */
async function ownPages(db: Db, siteId: number, period: Period, start: string) {
  const [pages, providers, prompts] = await Promise.all([
    db
      .selectFrom('rollupPagePeriod')
      .select(['url', 'answers'])
      .where('siteId', '=', siteId)
      .where('period', '=', period)
      .where('start', '=', start)
      .where('competitorId', '=', 0)
      .orderBy('answers', 'desc')
      .orderBy('url')
      .limit(OWN_PAGES)
      .execute(),
    sql<{ url: string; provider: string; count: number }>`
      SELECT r.url, r.provider, sum(r.answers) AS count FROM (${ownPagePromptRows(siteId, period, start)}) r GROUP BY r.url, r.provider`.execute(
      db,
    ),
    sql<{ url: string; id: number; text: string; count: number; promptCount: number }>`
      SELECT x.url, x.prompt_id AS id, p.text, x.count, x.prompt_count
        FROM (SELECT r.url, r.prompt_id, sum(r.answers) AS count,
                     row_number() OVER (PARTITION BY r.url ORDER BY sum(r.answers) DESC, r.prompt_id) AS n,
                     count(*) OVER (PARTITION BY r.url) AS prompt_count
                FROM (${ownPagePromptRows(siteId, period, start)}) r
               GROUP BY r.url, r.prompt_id) x
        -- Each listed prompt by its key (OFFSET 0 keeps this a lookup per row): joined as a table, Postgres hashed
        -- every site's prompts, most of this report's time once one large site shared the table.
        CROSS JOIN LATERAL (SELECT text FROM prompts WHERE id = x.prompt_id OFFSET 0) p
       WHERE x.n <= ${PROMPTS_PER_PAGE}
       ORDER BY x.url, x.n`.execute(db),
  ]);
  return pages.map((pg) => {
    const listed = prompts.rows.filter((r) => r.url === pg.url);
    return {
      url: pg.url,
      count: pg.answers,
      promptCount: Number(listed[0]?.promptCount ?? 0),
      prompts: listed.map((r) => ({ id: r.id, text: r.text, count: Number(r.count) })),
      providers: PROVIDER_KEYS.flatMap((k) => {
        const row = providers.rows.find((x) => x.url === pg.url && x.provider === k);
        return row ? [{ provider: k, count: Number(row.count) }] : [];
      }),
    };
  });
}

export async function siteSources(ctx: AppContext, site: SiteRow, query: SourcesQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  const [periods, rows, types, own, counts, typeSpreads] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    sourcePage(ctx.db, site.id, p.period, p.start, {
      siteType: query.siteType,
      limit: query.perPage,
      offset: (query.page - 1) * query.perPage,
    }),
    sourceRows(ctx.db, site.id, p.period, p.start)
      .select([
        'siteType',
        (eb) => eb.fn.sum<number>('citations').as('citations'),
        (eb) => eb.fn.countAll<number>().as('domains'),
      ])
      .groupBy('siteType')
      .execute(),
    ownPages(ctx.db, site.id, p.period, p.start),
    siteCountsByPeriod(ctx.db, site.id, p.period, p.start, p.start),
    siteTypeSpreads(ctx.db, site.id, p.period, p.start),
  ]);
  const answered = headline(counts.reduce((acc, r) => addCounts(acc, r.counts), emptyCounts())).answered;
  const allCitations = types.reduce((n, t) => n + Number(t.citations), 0);
  // Domains per site type give the list's total without counting again.
  const total = types
    .filter((t) => !query.siteType || t.siteType === query.siteType)
    .reduce((n, t) => n + Number(t.domains), 0);
  return {
    ...periodEcho(p, periods),
    answered,
    sources: rows.map((r) => ({ ...sourceItem(r), ...shareOf(r, answered) })),
    total,
    page: query.page,
    perPage: query.perPage,
    siteTypes: SITE_TYPES.flatMap((t) => {
      const row = types.find((x) => x.siteType === t);
      if (!row) return [];
      const b = shareBounds(typeSpreads.get(t));
      return [
        {
          siteType: t,
          domains: Number(row.domains),
          citations: Number(row.citations),
          share: percentOf(Number(row.citations), allCitations),
          shareLow: b.low,
          shareHigh: b.high,
        },
      ];
    }),
    ownPages: own,
  };
}
