import { runRetention } from '../src/domain/answers/retention.ts';
import type { JobHandler } from './types.ts';

export const retentionTick: JobHandler<'retention-tick'> = (ctx) => runRetention(ctx);
