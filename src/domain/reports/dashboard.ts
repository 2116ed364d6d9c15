import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { Role } from '../../db/schema.ts';
import { listSites } from '../sites/index.ts';
import { getOrg } from '../orgs/index.ts';
import { emptyCounts, sums, type SiteCounts } from './base.ts';
import { headlineWithIntervals } from './report.ts';
import { estimatesOf, PROMPT_PERIOD_SPREAD, spreadOf, type SpreadRow } from './spread.ts';

/**
 * The dashboard's figures per site: each site's latest week with data, the
 * same numbers as its weekly report, in one read for all sites.
 */
export async function siteSummaries(db: Db, siteIds: readonly number[]) {
  const out = new Map<
    number,
    { period: 'week'; start: string | null; lastScanAt: Date | null } & ReturnType<typeof headlineWithIntervals>
  >();
  if (siteIds.length === 0) return out;
  const latestWeeks = sql`
      WITH latest AS (
        SELECT s.id AS site_id, (SELECT max(r.day) FROM rollup_site_day r WHERE r.site_id = s.id) AS day
          FROM unnest(${[...siteIds]}::int[]) AS s(id)),
      w AS (SELECT site_id, day, date_trunc('week', day::timestamp)::date AS start FROM latest WHERE day IS NOT NULL)`;
  const [weeks, scans, spreads] = await Promise.all([
    sql<SiteCounts & { siteId: number; start: string }>`
      ${latestWeeks}
      SELECT w.site_id, w.start, ${sums}
        FROM w JOIN rollup_site_day r ON r.site_id = w.site_id AND r.day >= w.start AND r.day <= w.day
       GROUP BY w.site_id, w.start`.execute(db),
    // The last scan (imports included) that stored answers: when it finished, or started while it runs.
    sql<{ siteId: number; at: Date }>`
      SELECT site_id, max(coalesce(finished_at, started_at, created_at)) AS at FROM scans
       WHERE site_id = ANY(${[...siteIds]}::int[]) AND answers_done + answers_failed > 0
       GROUP BY site_id`.execute(db),
    // Each week's spread over prompts, for its 95% intervals (./spread.ts).
    sql<SpreadRow & { siteId: number }>`
      ${latestWeeks}
      SELECT w.site_id, ${PROMPT_PERIOD_SPREAD}
        FROM w JOIN rollup_prompt_period r ON r.site_id = w.site_id AND r.period = 'week' AND r.start = w.start
       GROUP BY w.site_id`.execute(db),
  ]);
  const spread = new Map(spreads.rows.map((r) => [r.siteId, spreadOf(r)]));
  const lastScan = new Map(scans.rows.map((r) => [r.siteId, r.at]));
  for (const id of siteIds) {
    const row = weeks.rows.find((r) => r.siteId === id);
    const { siteId: _siteId, start, ...counts } = row ?? { siteId: id, start: null, ...emptyCounts() };
    out.set(id, {
      period: 'week',
      start,
      lastScanAt: lastScan.get(id) ?? null,
      ...headlineWithIntervals(counts as SiteCounts, estimatesOf(spread.get(id))),
    });
  }
  return out;
}

/** GET /orgs/:orgId/dashboard: the workspace, and every site with the numbers of its latest week. */
export async function dashboard(ctx: AppContext, orgId: number, role: Role) {
  const [{ org }, sites] = await Promise.all([getOrg(ctx, orgId, role), listSites(ctx, orgId)]);
  const figures = await siteSummaries(
    ctx.db,
    sites.map((s) => s.id),
  );
  return {
    org: { id: org.id, name: org.name, plan: org.plan, role, balanceUsd: org.balanceUsd },
    connectedAssistants: org.connectedAssistants,
    limits: { ...org.limits, scansUsedThisMonth: org.scansUsedThisMonth },
    scansUsedThisMonth: org.scansUsedThisMonth,
    sites: sites.map((s) => {
      // The site's latest week with data, the numbers of its weekly report; nulls before the first scan.
      const f = figures.get(s.id);
      const scanned = f?.start != null;
      return {
        id: s.id,
        name: s.name,
        domain: s.domain,
        period: 'week' as const,
        start: f?.start ?? null,
        answers: f?.answers ?? 0,
        visibility: f?.visibility ?? null,
        visibilityLow: f?.visibilityLow ?? null,
        visibilityHigh: f?.visibilityHigh ?? null,
        mentioned: scanned ? (f?.mentioned ?? null) : null,
        ownCited: scanned ? (f?.ownCited ?? null) : null,
        brandRank: f?.brandRank ?? null,
        shareOfVoice: f?.shareOfVoice ?? null,
        shareOfVoiceLow: f?.shareOfVoiceLow ?? null,
        shareOfVoiceHigh: f?.shareOfVoiceHigh ?? null,
        lastScanAt: f?.lastScanAt ?? null,
        schedule: s.schedule,
      };
    }),
  };
}
