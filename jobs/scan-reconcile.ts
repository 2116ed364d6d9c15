import { reconcileScans } from '../src/domain/scans/index.ts';
import type { JobHandler } from './types.ts';

export const scanReconcile: JobHandler<'scan-reconcile'> = (ctx) => reconcileScans(ctx);
