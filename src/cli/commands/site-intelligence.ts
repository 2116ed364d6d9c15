import { CheckFailed, defineCommand, id, withContext } from '../command.ts';
import { progressLine } from '../progress.ts';

/**
 * A site's pages and crawler access, run in this process (no worker needed)
 * with a progress line on stderr; the result is printed as JSON, and a failed
 * import or check exits 1 with its reason.
 */
export const siteIntelligenceCommands = [
  defineCommand({
    name: 'pages import',
    usage: 'pages import --project ID',
    summary:
      "Read the site's sitemaps now (robots.txt Sitemap lines, else /sitemap.xml), add new pages, read missing titles",
    flags: { project: id },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const [
          { BUSY, waitFor },
          { findSiteForOperator },
          { requestSitemapImport, serializeImport, runSitemapImport },
        ] = await Promise.all([
          import('../../domain/common/index.ts'),
          import('../../domain/sites/index.ts'),
          import('../../domain/pages/index.ts'),
        ]);
        const site = await findSiteForOperator(ctx, a.project);
        const line = progressLine();
        const { import: row } = await requestSitemapImport(ctx, site, null, 'cli', { queue: false });
        const ran = await runSitemapImport(ctx, site.id, row.id, {
          onProgress: (p) =>
            line.draw(
              `sitemaps ${p.sitemaps}  pages ${p.urls.toLocaleString('en-US')}  ${p.phase === 'sitemaps' ? 'reading sitemaps' : p.phase === 'titles' ? `titles ${p.titles}/${p.titlesWanted}` : 'writing'}`,
            ),
        });
        if (ran === BUSY) {
          // A worker is running this site's import: follow its record until it ends.
          await waitFor(
            async () =>
              ctx.db.selectFrom('sitemapImports').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow(),
            (r) => {
              line.draw(
                `sitemaps ${r.sitemaps}  pages ${r.urls.toLocaleString('en-US')}  titles ${r.titles}  (${r.status} in a worker)`,
              );
              return r.status === 'done' || r.status === 'failed';
            },
            24 * 3600 * 1000,
            500,
          );
        }
        line.end();
        const done = serializeImport(
          await ctx.db.selectFrom('sitemapImports').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow(),
        );
        if (done.state === 'failed') throw new CheckFailed(`the import failed: ${done.error}`, { import: done });
        return { import: done };
      }),
  }),
  defineCommand({
    name: 'crawlers check',
    usage: 'crawlers check --project ID',
    summary: "Read the site's robots.txt and llms.txt now and print what each AI crawler may read",
    flags: { project: id },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const [
          { waitFor },
          { findSiteForOperator, siteOrigin },
          { requestCrawlerCheck, runCrawlerCheck, crawlerReport },
        ] = await Promise.all([
          import('../../domain/common/index.ts'),
          import('../../domain/sites/index.ts'),
          import('../../domain/crawlers/index.ts'),
        ]);
        const site = await findSiteForOperator(ctx, a.project);
        const line = progressLine();
        line.draw(`reading ${siteOrigin(site)}/robots.txt and /llms.txt`);
        const { check } = await requestCrawlerCheck(ctx, site, null, 'cli', { queue: false });
        const ran = await runCrawlerCheck(ctx, site.id, check.id);
        let result: { state: string; error?: string };
        if (typeof ran === 'symbol') {
          // A worker is running this site's check: wait for it.
          const row = await waitFor(
            async () =>
              ctx.db
                .selectFrom('crawlerChecks')
                .select(['status', 'error'])
                .where('id', '=', check.id)
                .executeTakeFirstOrThrow(),
            (r) => r.status === 'done' || r.status === 'failed',
            15 * 60 * 1000,
            500,
          );
          result = { state: row.status === 'failed' ? 'failed' : 'done', error: row.error ?? undefined };
        } else result = ran;
        const report = await crawlerReport(ctx, site);
        const count = (access: string) => report.crawlers.filter((c) => c.access === access).length;
        line.draw(
          `robots.txt ${report.robots?.state ?? '?'}: ${count('allowed')} allowed, ${count('partial')} partial, ${count('blocked')} blocked; llms.txt ${report.llmsTxt?.state ?? '?'}`,
        );
        line.end();
        if (result.state === 'failed') throw new CheckFailed(`the check failed: ${result.error}`, report);
        return report;
      }),
  }),
];
