import { failCrawlerCheck, runNightlyChecks, runCrawlerCheck } from '../src/domain/crawlers/index.ts';
import type { ExhaustedHandler, JobHandler } from './types.ts';

export const crawlerCheck: JobHandler<'crawler-check'> = (ctx, { siteId, checkId }) => runCrawlerCheck(ctx, siteId, checkId);

export const crawlerCheckExhausted: ExhaustedHandler<'crawler-check'> = (ctx, { checkId }, error) => failCrawlerCheck(ctx, checkId, `the check stopped: ${error.message}`);

export const crawlerCheckTick: JobHandler<'crawler-check-tick'> = (ctx) => runNightlyChecks(ctx);
