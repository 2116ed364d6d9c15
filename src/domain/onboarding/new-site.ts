import type { AppContext } from '../../context.ts';
import { nameWarnings } from '../names/index.ts';
import { insertSite, type SiteCreate } from '../sites/index.ts';

/**
 * A new site: the row made (insertSite), then its first sitemap import and
 * crawler check queued. A process, not part of sites: it starts pages and
 * crawlers work, which sit above the write model.
 */
export async function createSite(ctx: AppContext, actor: { orgId: number; userId: number }, input: SiteCreate) {
  const site = await insertSite(ctx, actor, input);
  await firstSiteReads(ctx, site.id, actor.userId);
  return site;
}

/** POST /orgs/:orgId/projects: the site made (createSite) and the ambiguous names it tracks (`warnings`). */
export async function addSite(ctx: AppContext, actor: { orgId: number; userId: number }, input: SiteCreate) {
  const site = await createSite(ctx, actor, input);
  const warnings = nameWarnings([
    { field: 'name', names: [site.name] },
    { field: 'brandTerms', names: site.brandTerms },
    { field: 'competitors', names: site.competitors.map((c) => c.name) },
  ]);
  return { project: site, warnings };
}

/**
 * A new site's first sitemap import and crawler check, queued once it
 * exists. The site is made either way: a queue that is down only delays
 * them to the nightly run or the next request.
 */
async function firstSiteReads(ctx: AppContext, siteId: number, userId: number): Promise<void> {
  // Loaded here, not at the top: every CLI command loads this module, and these bring in the queue client.
  const [{ requestSitemapImport }, { requestCrawlerCheck }] = await Promise.all([
    import('../pages/index.ts'),
    import('../crawlers/index.ts'),
  ]);
  const results = await Promise.allSettled([
    requestSitemapImport(ctx, { id: siteId }, userId, 'create'),
    requestCrawlerCheck(ctx, { id: siteId }, userId, 'create'),
  ]);
  for (const r of results)
    if (r.status === 'rejected')
      ctx.logger.warn({ siteId, err: (r.reason as Error).message }, 'first site read not queued');
}
