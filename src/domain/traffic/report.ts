import { sql } from 'kysely';
import { wilson } from '../../analysis/intervals.ts';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteRow } from '../../db/schema.ts';
import { utcDay } from '../../dates.ts';
import { AI_ASSISTANTS } from '../../logs/referrers.ts';
import { AI_CRAWLERS } from '../../web/ai-crawlers.ts';
import { latestDayWithData } from '../facts/index.ts';
import { percentOf, periodEcho, type ReportPeriod } from '../reports/index.ts';
import { chosenStart, periodEnd, type Period, type PeriodQuery } from '../common/index.ts';
import { latestLogImport, serializeLogImport } from './log-imports.ts';

/**
 * GET /projects/:id/crawler-traffic: one period of what AI agents fetched
 * (per agent: hits, pages, the share verified against published ranges
 * with its 95% interval, status classes, top pages), the pages that served
 * them errors or redirects, the visits assistants sent (per assistant and
 * landing page), and the join with the site's pages and the answers'
 * citations of the same period: pages crawled that no answer cites, pages
 * cited that no agent fetched. Everything but the join is read from the
 * summaries an import writes when it ends (store.ts `summarizePeriods`): a
 * row per agent and one for the period; the join reads the period's pages
 * (a few thousand rows) against its citations. Cost grows with the pages
 * crawled in the period, never with the lines imported.
 */

/** Pages listed per list of the join (the other lists are cut when an import ends, store.ts). */
const LISTED = 50;

const crawlers = new Map(AI_CRAWLERS.map((c) => [c.agent, c]));
const assistants = new Map(AI_ASSISTANTS.map((a) => [a.assistant, a]));

interface Counts {
  hits: number;
  verified: number;
  spoofed: number;
  s2xx: number;
  s3xx: number;
  s4xx: number;
  s5xx: number;
}

const n = (v: unknown) => Number(v ?? 0);

/** The share of checked hits from published ranges, with its Wilson interval; null when none was checked. */
function verifiedShare(c: Pick<Counts, 'verified' | 'spoofed'>) {
  const checked = n(c.verified) + n(c.spoofed);
  const w = wilson(n(c.verified), checked);
  const pct = (x: number | undefined) => (x === undefined ? null : Math.round(x * 1000) / 10);
  return {
    verified: percentOf(n(c.verified), checked),
    verifiedLow: pct(w?.low),
    verifiedHigh: pct(w?.high),
    checked,
    spoofed: n(c.spoofed),
  };
}

const statusOf = (c: Pick<Counts, 's2xx' | 's3xx' | 's4xx' | 's5xx'>) => ({
  ok: n(c.s2xx),
  redirect: n(c.s3xx),
  clientError: n(c.s4xx),
  serverError: n(c.s5xx),
});

/** The latest day with crawler traffic, else with answers: where the report opens without a start. */
async function latestTrafficDay(db: Db, siteId: number): Promise<string | null> {
  const row = await db
    .selectFrom('trafficAgentPeriod')
    .select((eb) => eb.fn.max('start').as('day'))
    .where('siteId', '=', siteId)
    .where('period', '=', 'day')
    .executeTakeFirst();
  return row?.day ?? null;
}

export async function trafficPeriod(ctx: AppContext, siteId: number, query: PeriodQuery): Promise<ReportPeriod> {
  const latest = query.start
    ? null
    : ((await latestTrafficDay(ctx.db, siteId)) ?? (await latestDayWithData(ctx.db, siteId)));
  const start = chosenStart(query.period, query.start, latest, utcDay(ctx.clock.now()));
  return { period: query.period, start, end: periodEnd(query.period, start) };
}

async function trafficPeriods(db: Db, siteId: number, period: Period): Promise<string[]> {
  const rows = await db
    .selectFrom('trafficAgentPeriod')
    .select('start')
    .distinct()
    .where('siteId', '=', siteId)
    .where('period', '=', period)
    .orderBy('start')
    .execute();
  return rows.map((r) => r.start);
}

/** Per agent: its counters, and its pages and top pages as the import's end summarized them (store.ts). */
async function agentRows(db: Db, siteId: number, p: ReportPeriod) {
  const agents = await db
    .selectFrom('trafficAgentPeriod')
    .selectAll()
    .where('siteId', '=', siteId)
    .where('period', '=', p.period)
    .where('start', '=', p.start)
    .orderBy('hits', 'desc')
    .orderBy('agent')
    .execute();
  return agents.map((a) => {
    const known = crawlers.get(a.agent);
    return {
      agent: a.agent,
      company: known?.company ?? null,
      kind: known?.kind ?? null,
      hits: n(a.hits),
      pages: n(a.pages),
      ...verifiedShare(a),
      status: statusOf(a),
      topPages: a.top.map((r) => ({ path: r.path, url: r.url, hits: n(r.hits), status: statusOf(r) })),
    };
  });
}

/**
 * The period's totals an import's end wrote (store.ts): pages crawled, the
 * pages that served agents errors or redirects (errors first), referrals
 * per assistant and per landing page; titles from the site's pages.
 */
async function periodTotals(db: Db, siteId: number, p: ReportPeriod) {
  const row = await db
    .selectFrom('trafficPeriodTotals')
    .selectAll()
    .where('siteId', '=', siteId)
    .where('period', '=', p.period)
    .where('start', '=', p.start)
    .executeTakeFirst();
  const status = row?.statusPages ?? [];
  const byAssistant = row?.referralAssistants ?? [];
  const landing = row?.referralPages ?? [];
  const urls = [...new Set([...status.map((x) => x.url), ...landing.map((x) => x.url)])];
  const titles = new Map(
    urls.length
      ? (
          await db
            .selectFrom('pages')
            .select(['normalizedUrl', 'title'])
            .where('siteId', '=', siteId)
            .where('normalizedUrl', 'in', urls)
            .execute()
        ).map((r) => [r.normalizedUrl, r.title])
      : [],
  );
  return {
    pages: n(row?.pages),
    statusPages: status.map((r) => ({
      path: r.path,
      url: r.url,
      title: titles.get(r.url) ?? null,
      hits: n(r.hits),
      redirect: n(r.s3xx),
      clientError: n(r.s4xx),
      serverError: n(r.s5xx),
    })),
    referrals: {
      visits: byAssistant.reduce((sum, a) => sum + n(a.visits), 0),
      assistants: byAssistant.map((a) => ({
        assistant: a.assistant,
        company: assistants.get(a.assistant)?.company ?? null,
        visits: n(a.visits),
        pages: (a.pages ?? []).map((x) => ({ path: x.path, url: x.url, visits: n(x.visits) })),
      })),
      pages: landing.map((r) => ({
        path: r.path,
        url: r.url,
        title: titles.get(r.url) ?? null,
        visits: n(r.visits),
        assistants: r.assistants.map((a) => ({ assistant: a.assistant, visits: n(a.visits) })),
      })),
    },
  };
}

/**
 * The join with pages and citations, over the same period: pages AI agents
 * fetched (a page, not a file; a 2xx answer; spoofed hits aside) that no
 * answer cites, and own pages answers cite that no agent fetched. Citations
 * are the answers' own citations of the period (rollup_page_period),
 * matched on the normalized URL.
 */
async function join(db: Db, siteId: number, p: ReportPeriod) {
  const period = sql`site_id = ${siteId} AND period = ${p.period} AND start = ${p.start}`;
  // Crawled: a page (not a file), a 2xx answer, fetched by an agent other than from outside its ranges.
  const crawled = sql`hits > spoofed AND s2xx > 0 AND is_page`;
  const cited = sql`SELECT url, answers FROM rollup_page_period WHERE ${period} AND competitor_id = 0`;
  const [notCited, notCrawled] = await Promise.all([
    sql<{
      path: string;
      url: string;
      title: string | null;
      pageId: number | null;
      hits: number;
      agents: string[];
      total: number;
    }>`
      SELECT x.path, x.url, pg.title, pg.id AS page_id, x.hits, x.agents, x.total
        FROM (SELECT c.path, c.normalized_url AS url, c.hits - c.spoofed AS hits, c.agents, count(*) OVER () AS total
                FROM traffic_period_pages c
               WHERE c.site_id = ${siteId} AND c.period = ${p.period} AND c.start = ${p.start} AND c.hits > c.spoofed AND c.s2xx > 0 AND c.is_page
                 AND NOT EXISTS (SELECT 1 FROM (${cited}) k WHERE k.url = c.normalized_url)
               ORDER BY c.hits - c.spoofed DESC, c.path
               LIMIT ${LISTED}) x
        LEFT JOIN pages pg ON pg.site_id = ${siteId} AND pg.normalized_url = x.url
       ORDER BY x.hits DESC, x.path`.execute(db),
    sql<{
      url: string;
      path: string | null;
      title: string | null;
      pageId: number | null;
      answers: number;
      lastCrawled: string | null;
      total: number;
    }>`
      SELECT x.url, coalesce(pg.path, t.path) AS path, pg.title, pg.id AS page_id, x.answers, t.last_crawled, x.total
        FROM (SELECT k.url, k.answers, count(*) OVER () AS total FROM (${cited}) k
               WHERE NOT EXISTS (SELECT 1 FROM traffic_period_pages c WHERE ${period} AND c.normalized_url = k.url AND ${crawled})
               ORDER BY k.answers DESC, k.url
               LIMIT ${LISTED}) x
        LEFT JOIN pages pg ON pg.site_id = ${siteId} AND pg.normalized_url = x.url
        LEFT JOIN LATERAL (SELECT path, last_crawled FROM traffic_paths WHERE site_id = ${siteId} AND normalized_url = x.url ORDER BY last_crawled DESC NULLS LAST LIMIT 1) t ON true
       ORDER BY x.answers DESC, x.url`.execute(db),
  ]);
  return {
    crawledNotCited: notCited.rows.map((r) => ({
      path: r.path,
      url: r.url,
      title: r.title,
      pageId: r.pageId,
      hits: n(r.hits),
      agents: r.agents ?? [],
    })),
    crawledNotCitedTotal: n(notCited.rows[0]?.total),
    citedNotCrawled: notCrawled.rows.map((r) => ({
      url: r.url,
      path: r.path,
      title: r.title,
      pageId: r.pageId,
      answers: n(r.answers),
      lastCrawled: r.lastCrawled,
    })),
    citedNotCrawledTotal: n(notCrawled.rows[0]?.total),
  };
}

export async function crawlerTrafficReport(ctx: AppContext, site: SiteRow, query: PeriodQuery) {
  const p = await trafficPeriod(ctx, site.id, query);
  const [periods, agents, totals, joined, last] = await Promise.all([
    trafficPeriods(ctx.db, site.id, p.period),
    agentRows(ctx.db, site.id, p),
    periodTotals(ctx.db, site.id, p),
    join(ctx.db, site.id, p),
    latestLogImport(ctx, site.id),
  ]);
  const sum = (pick: (a: (typeof agents)[number]) => number) => agents.reduce((s, a) => s + pick(a), 0);
  return {
    ...periodEcho(p, periods),
    totals: {
      hits: sum((a) => a.hits),
      pages: totals.pages,
      referrals: totals.referrals.visits,
      ...verifiedShare({ verified: sum((a) => a.checked - a.spoofed), spoofed: sum((a) => a.spoofed) }),
    },
    agents,
    statusPages: totals.statusPages,
    referrals: totals.referrals,
    ...joined,
    lastImport: last ? serializeLogImport(last) : null,
  };
}
