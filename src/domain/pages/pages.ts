import { sql, type RawBuilder } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { PageRow, SiteRow, Verdict } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { queryText, pagingShape } from '../common/index.ts';
import { latestImport, serializeImport } from './imports.ts';

/**
 * The site's pages and which of them the assistants link to. "Shown" means a
 * current answer links to the page: each assistant's latest answer to each
 * prompt (the prompt list's verdict columns) cites it as an own page, matched
 * on the URL form analysis gives citations.
 */

export const pageListQuerySchema = z.object({
  q: queryText('q', 500),
  // "/" names the home page's section (the empty one).
  section: queryText('section', 200),
  shown: z.enum(['yes', 'no'], { error: 'shown must be yes or no' }).optional(),
  ...pagingShape(50),
});
export type PageListQuery = z.output<typeof pageListQuerySchema>;

/** Sections listed beside the pages, largest first. */
const SECTIONS_SHOWN = 50;

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Own pages cited by the site's current answers, with how many of those answers cite each. */
const linkedPages = (siteId: number) => sql`
  SELECT c.url, count(*) AS answers
    FROM rollup_prompt_latest l
    JOIN answer_facts f ON f.answer_id = l.answer_id
   CROSS JOIN LATERAL (SELECT DISTINCT x->>'normalizedUrl' AS url FROM jsonb_array_elements(f.citations) x WHERE x->>'siteType' = 'own') c
   WHERE l.site_id = ${siteId}
   GROUP BY c.url`;

type PageListRow = Pick<
  PageRow,
  'id' | 'url' | 'path' | 'section' | 'title' | 'lastmod' | 'firstSeenAt' | 'lastSeenAt'
> & { answers: number };

export function serializePage(row: PageListRow) {
  return {
    id: row.id,
    url: row.url,
    path: row.path,
    // The home page's section is written as the filter takes it.
    section: row.section === '' ? '/' : row.section,
    title: row.title,
    lastmod: row.lastmod,
    shown: Number(row.answers) > 0,
    answers: Number(row.answers),
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.lastSeenAt,
  };
}

function filters(siteId: number, query: PageListQuery): RawBuilder<unknown> {
  const where: RawBuilder<unknown>[] = [sql`p.site_id = ${siteId}`];
  if (query.q)
    where.push(sql`(p.url ILIKE ${`%${escapeLike(query.q)}%`} OR p.title ILIKE ${`%${escapeLike(query.q)}%`})`);
  if (query.section !== undefined)
    where.push(sql`p.section = ${query.section === '/' ? '' : query.section.replace(/^\/+|\/+$/g, '')}`);
  if (query.shown === 'yes') where.push(sql`k.url IS NOT NULL`);
  if (query.shown === 'no') where.push(sql`k.url IS NULL`);
  return sql.join(where, sql` AND `);
}

export async function listPages(ctx: AppContext, site: SiteRow, query: PageListQuery) {
  const where = filters(site.id, query);
  const [rows, count, sections, last] = await Promise.all([
    sql<PageListRow>`
      WITH linked AS (${linkedPages(site.id)})
      SELECT p.id, p.url, p.path, p.section, p.title, p.lastmod, p.first_seen_at, p.last_seen_at, coalesce(k.answers, 0) AS answers
        FROM pages p LEFT JOIN linked k ON k.url = p.normalized_url
       WHERE ${where}
       ORDER BY p.normalized_url
       LIMIT ${query.perPage} OFFSET ${(query.page - 1) * query.perPage}`.execute(ctx.db),
    sql<{ n: number }>`
      WITH linked AS (${query.shown ? linkedPages(site.id) : sql`SELECT NULL::text AS url WHERE false`})
      SELECT count(*) AS n FROM pages p LEFT JOIN linked k ON k.url = p.normalized_url WHERE ${where}`.execute(ctx.db),
    ctx.db
      .selectFrom('pages')
      .select(['section', (eb) => eb.fn.countAll<number>().as('pages')])
      .where('siteId', '=', site.id)
      .groupBy('section')
      .orderBy('pages', 'desc')
      .orderBy('section')
      .limit(SECTIONS_SHOWN)
      .execute(),
    latestImport(ctx, site.id),
  ]);
  return {
    pages: rows.rows.map(serializePage),
    total: Number(count.rows[0]?.n ?? 0),
    page: query.page,
    perPage: query.perPage,
    sections: sections.map((s) => ({ section: s.section === '' ? '/' : s.section, pages: Number(s.pages) })),
    import: last ? serializeImport(last) : null,
  };
}

/** GET /projects/:id/pages/:pageId/prompts: the prompts whose current answers link to the page, with each linking answer. */
export async function pagePrompts(ctx: AppContext, site: SiteRow, pageId: number) {
  const page = await ctx.db
    .selectFrom('pages')
    .selectAll()
    .where('id', '=', pageId)
    .where('siteId', '=', site.id)
    .executeTakeFirst();
  if (!page) throw new NotFoundError(`No page with id ${pageId}`);
  const rows = await sql<{
    id: number;
    text: string;
    status: string;
    provider: string;
    answerId: number;
    askedAt: Date;
    verdict: Verdict;
  }>`
    SELECT l.prompt_id AS id, p.text, p.status, l.provider, l.answer_id, l.asked_at, l.verdict
      FROM rollup_prompt_latest l
      JOIN answer_facts f ON f.answer_id = l.answer_id
      JOIN prompts p ON p.id = l.prompt_id
     WHERE l.site_id = ${site.id}
       AND EXISTS (SELECT 1 FROM jsonb_array_elements(f.citations) x WHERE x->>'siteType' = 'own' AND x->>'normalizedUrl' = ${page.normalizedUrl})
     ORDER BY p.text, l.prompt_id, l.provider`.execute(ctx.db);
  const prompts = new Map<
    number,
    {
      id: number;
      text: string;
      status: string;
      answers: { provider: string; answerId: number; askedAt: Date; verdict: Verdict }[];
    }
  >();
  for (const r of rows.rows) {
    let prompt = prompts.get(r.id);
    if (!prompt) prompts.set(r.id, (prompt = { id: r.id, text: r.text, status: r.status, answers: [] }));
    prompt.answers.push({ provider: r.provider, answerId: Number(r.answerId), askedAt: r.askedAt, verdict: r.verdict });
  }
  const answers = rows.rows.length;
  return { page: serializePage({ ...page, answers }), prompts: [...prompts.values()], total: prompts.size };
}
