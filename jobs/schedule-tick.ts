import { runNightlyTick } from '../src/domain/schedules.ts';
import type { JobHandler } from './types.ts';

export const scheduleTick: JobHandler<'schedule-tick'> = (ctx) => runNightlyTick(ctx);
