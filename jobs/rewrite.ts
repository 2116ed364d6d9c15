import { runRewrite } from '../src/domain/prompts/index.ts';
import type { JobHandler } from './types.ts';

export const rewrite: JobHandler<'rewrite'> = (ctx, { siteId }) => runRewrite(ctx, siteId);
