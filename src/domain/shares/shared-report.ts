import type { AppContext } from '../../context.ts';
import type { PeriodQuery } from '../common/index.ts';
import { siteReport } from '../reports/index.ts';
import { crawlerTrafficReport } from '../traffic/index.ts';
import { hashShareToken, isWellFormedShareToken } from './share-tokens.ts';

/**
 * GET /share/:token: what the public page shows, read by the same
 * `siteReport` as GET /projects/:id/report. Null when the token opens
 * nothing (malformed, unknown or revoked): the page answers 404 for all three
 * alike, so a revoked link tells nothing a wrong one would not.
 */
export async function sharedReport(ctx: AppContext, token: string, query: PeriodQuery) {
  if (!isWellFormedShareToken(token)) return null;
  const shared = await ctx.db
    .selectFrom('shareLinks as l')
    .innerJoin('sites as s', 's.id', 'l.siteId')
    .innerJoin('orgs as o', 'o.id', 's.orgId')
    .selectAll('s')
    .select(['o.name as orgName', 'o.reportName', 'o.reportLogo'])
    .where('l.tokenHash', '=', hashShareToken(token))
    .where('l.revokedAt', 'is', null)
    .executeTakeFirst();
  if (!shared) return null;
  const { orgName, reportName, reportLogo, ...site } = shared;
  const report = await siteReport(ctx, site, query);
  // The same period as the report: its AI crawlers section, from the site's server logs.
  const crawlerTraffic = await crawlerTrafficReport(ctx, site, { period: report.period, start: report.start });
  return {
    // Report branding defaults to the workspace name and no logo (CONTRACT.md "Sites").
    brand: { name: reportName ?? orgName, logo: reportLogo },
    site: { name: site.name, domain: site.domain },
    ...report,
    crawlerTraffic,
  };
}

export type SharedReport = NonNullable<Awaited<ReturnType<typeof sharedReport>>>;
