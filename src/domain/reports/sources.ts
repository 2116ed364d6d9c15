import { sql } from 'kysely';
import { z } from 'zod';
import { PROVIDER_KEYS } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { periodQuerySchema, type Period } from './periods.ts';
import { ownPagePromptRows } from './period-rows.ts';
import { pagingShape } from './query.ts';
import { addCounts, emptyCounts, headline, percentOf, periodEcho, periodsWithData, resolvePeriod, siteCountsByPeriod } from './base.ts';

/** GET /projects/:id/sources: cited domains and the brand's own pages. */

export const SITE_TYPES = ['own', 'competitor', 'ugc', 'review', 'news', 'reference', 'social', 'video', 'other'] as const;

export const sourcesQuerySchema = periodQuerySchema.extend({
  siteType: z.enum(SITE_TYPES, { error: `siteType must be one of ${SITE_TYPES.join(', ')}` }).optional(),
  ...pagingShape(50),
});
export type SourcesQuery = z.output<typeof sourcesQuerySchema>;

/** Own pages listed, and prompts listed per page, at most. */
const OWN_PAGES = 200;
const PROMPTS_PER_PAGE = 10;

function sourceItem(r: { domain: string; siteType: string; answers: number; namesBrand: number; citations: number }) {
  return { domain: r.domain, siteType: r.siteType, count: r.answers, citations: r.citations, namesBrand: percentOf(r.namesBrand, r.answers) };
}

function sourceRows(db: Db, siteId: number, period: Period, start: string) {
  return db.selectFrom('rollupSourcePeriod').where('siteId', '=', siteId).where('period', '=', period).where('start', '=', start);
}

/** The most cited domains of a period (the report's "most cited sources"). */
export async function topSources(db: Db, siteId: number, period: Period, start: string, limit: number) {
  const rows = await sourceRows(db, siteId, period, start)
    .select(['domain', 'siteType', 'answers', 'namesBrand', 'citations'])
    .orderBy('answers', 'desc')
    .orderBy('domain')
    .limit(limit)
    .execute();
  return rows.map(sourceItem);
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
      SELECT r.url, r.provider, sum(r.answers) AS count FROM (${ownPagePromptRows(siteId, period, start)}) r GROUP BY r.url, r.provider`.execute(db),
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
  let list = sourceRows(ctx.db, site.id, p.period, p.start);
  if (query.siteType) list = list.where('siteType', '=', query.siteType);
  const [periods, rows, types, own, counts] = await Promise.all([
    periodsWithData(ctx.db, site.id, p.period),
    list
      .select(['domain', 'siteType', 'answers', 'namesBrand', 'citations'])
      .orderBy('answers', 'desc')
      .orderBy('domain')
      .orderBy('siteType')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    sourceRows(ctx.db, site.id, p.period, p.start)
      .select(['siteType', (eb) => eb.fn.sum<number>('citations').as('citations'), (eb) => eb.fn.countAll<number>().as('domains')])
      .groupBy('siteType')
      .execute(),
    ownPages(ctx.db, site.id, p.period, p.start),
    siteCountsByPeriod(ctx.db, site.id, p.period, p.start, p.start),
  ]);
  const answered = headline(counts.reduce((acc, r) => addCounts(acc, r.counts), emptyCounts())).answered;
  const allCitations = types.reduce((n, t) => n + Number(t.citations), 0);
  // Domains per site type give the list's total without counting again.
  const total = types.filter((t) => !query.siteType || t.siteType === query.siteType).reduce((n, t) => n + Number(t.domains), 0);
  return {
    ...periodEcho(p, periods),
    answered,
    sources: rows.map((r) => ({ ...sourceItem(r), share: percentOf(r.answers, answered) })),
    total,
    page: query.page,
    perPage: query.perPage,
    siteTypes: SITE_TYPES.flatMap((t) => {
      const row = types.find((x) => x.siteType === t);
      return row ? [{ siteType: t, domains: Number(row.domains), citations: Number(row.citations), share: percentOf(Number(row.citations), allCitations) }] : [];
    }),
    ownPages: own,
  };
}
