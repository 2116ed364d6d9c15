import { runRetention } from '../src/domain/facts/index.ts';
import type { JobHandler } from './types.ts';

export const retentionTick: JobHandler<'retention-tick'> = (ctx) => runRetention(ctx);
