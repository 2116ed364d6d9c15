import { failScan, runScan } from '../src/domain/scans/index.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';

export const scan: JobHandler<'scan'> = (ctx, { scanId }) => runScan(ctx, scanId);

export const scanExhausted: ExhaustedHandler<'scan'> = (ctx, { scanId }, error) => failScan(ctx, scanId, error.message);
