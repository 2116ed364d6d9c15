import { failImport, runNightlyImports, runSitemapImport } from '../src/domain/pages/index.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';

export const sitemapImport: JobHandler<'sitemap-import'> = (ctx, { siteId, importId }) => runSitemapImport(ctx, siteId, importId);

export const sitemapImportExhausted: ExhaustedHandler<'sitemap-import'> = (ctx, { importId }, error) => failImport(ctx, importId, `the import stopped: ${error.message}`);

export const sitemapImportTick: JobHandler<'sitemap-import-tick'> = (ctx) => runNightlyImports(ctx);
