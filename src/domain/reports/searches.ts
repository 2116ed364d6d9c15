import { sql } from 'kysely';
import type { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { SiteRow } from '../../db/schema.ts';
import { periodQuerySchema, pagingShape } from '../common/index.ts';
import { periodEcho, periodsWithData, resolvePeriod } from './base.ts';
import { searchRows } from './period-rows.ts';

/** GET /projects/:id/searches: the web searches assistants ran for active prompts, most common first. */

export const searchesQuerySchema = periodQuerySchema.extend(pagingShape(50));
export type SearchesQuery = z.output<typeof searchesQuerySchema>;

export async function siteSearches(ctx: AppContext, site: SiteRow, query: SearchesQuery) {
  const p = await resolvePeriod(ctx, site.id, query);
  // Searches are stored folded (searchKey): spellings differing in case or spacing are one search.
  const list = sql<{ query: string; count: number; prompts: number; total: number }>`
    SELECT s.query, sum(s.answers) AS count, count(DISTINCT s.prompt_id) AS prompts, count(*) OVER () AS total
      FROM (${searchRows(site.id, p.period, p.start)}) s
      JOIN prompts p ON p.id = s.prompt_id AND p.status = 'active'
     GROUP BY s.query
     ORDER BY count DESC, s.query
     LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`.execute(ctx.db);
  const [periods, { rows }] = await Promise.all([periodsWithData(ctx.db, site.id, p.period), list]);
  let total = Number(rows[0]?.total ?? 0);
  if (rows.length === 0 && query.page > 1) {
    const { rows: n } = await sql<{ n: number }>`
      SELECT count(DISTINCT s.query) AS n FROM (${searchRows(site.id, p.period, p.start)}) s JOIN prompts p ON p.id = s.prompt_id AND p.status = 'active'`.execute(
      ctx.db,
    );
    total = Number(n[0]?.n ?? 0);
  }
  return {
    ...periodEcho(p, periods),
    searches: rows.map((r) => ({ query: r.query, count: Number(r.count), prompts: Number(r.prompts) })),
    total,
    page: query.page,
    perPage: query.perPage,
  };
}
