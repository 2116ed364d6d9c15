import { failLogImport, runLogImport } from '../src/domain/traffic/index.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';

export const logImport: JobHandler<'log-import'> = (ctx, { siteId, importId }) => runLogImport(ctx, siteId, importId);

export const logImportExhausted: ExhaustedHandler<'log-import'> = (ctx, { importId }, error) =>
  failLogImport(ctx, importId, `the import stopped: ${error.message}; the lines before were counted`);
