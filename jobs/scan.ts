import { failScan, runScan } from '../src/domain/scan-run.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';

export const scan: JobHandler<'scan'> = (ctx, { scanId }) => runScan(ctx, scanId);

export const scanExhausted: ExhaustedHandler<'scan'> = (ctx, { scanId }, error) => failScan(ctx, scanId, error.message);
