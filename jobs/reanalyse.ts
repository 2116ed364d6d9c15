import { runReanalysis } from '../src/domain/reanalysis/reanalysis.ts';
import type { JobHandler } from './types.ts';

export const reanalyse: JobHandler<'reanalyse'> = (ctx, { siteId, reanalysisId }) => runReanalysis(ctx, siteId, reanalysisId);
