import { runNightlyTick } from '../src/domain/scans/index.ts';
import type { JobHandler } from './types.ts';

export const scheduleTick: JobHandler<'schedule-tick'> = (ctx) => runNightlyTick(ctx);
