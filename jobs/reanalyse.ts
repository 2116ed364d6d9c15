import { runReanalysis } from '../src/domain/reanalysis/index.ts';
import type { JobHandler } from './types.ts';

export const reanalyse: JobHandler<'reanalyse'> = (ctx, { siteId, reanalysisId }) => runReanalysis(ctx, siteId, reanalysisId);
