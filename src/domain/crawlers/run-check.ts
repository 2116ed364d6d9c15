import { createHash } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { CrawlerChecksTable, CrawlerResultJson } from '../../db/schema.ts';
import { withSiteLock, type Busy, claimSiteJob } from '../common/index.ts';
import { AI_CRAWLERS } from '../../web/ai-crawlers.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { LLMS_TXT_MAX_BYTES } from '../../web/llms-txt.ts';
import { ROBOTS_MAX_BYTES, type CrawlerAccess } from '../../web/robots.ts';
import { siteFetcherFor, type SiteFetcher } from '../../web/site-fetch.ts';
import { SiteFileError } from '../../web/site-file-error.ts';
import { siteFileReaderFor, type SiteFileReader } from '../../web/site-file-pool.ts';
import { siteOrigin } from '../sites/index.ts';
import { recordCrawlerEvents, dispatch } from '../webhooks/index.ts';

/**
 * The `crawler-check` job: reads the site's robots.txt and llms.txt (at
 * once) and stores, per AI crawler, what robots.txt lets it read and the
 * line that decides it. RFC 9309 for what the file's absence means: a 4xx
 * (404 above all) is "no rules", everything may be read; a 5xx or no answer
 * is "unreachable", which crawlers must take as "read nothing". An address
 * the fetch guard refuses (a redirect to our own network) fails the check,
 * as does a robots.txt its parsing thread cannot read in time (a llms.txt
 * that cannot be read is `invalid`, with the reason).
 */

type RobotsResult = Pick<
  CrawlerChecksTable,
  'robotsUrl' | 'robotsState' | 'robotsStatus' | 'robotsBytes' | 'robotsNote'
> & { crawlers: CrawlerResultJson[] };
type LlmsResult = Pick<
  CrawlerChecksTable,
  'llmsUrl' | 'llmsState' | 'llmsStatus' | 'llmsTitle' | 'llmsLinks' | 'llmsNote'
> & { llmsSha256?: string | null };

const everyCrawler = (access: CrawlerResultJson['access']): CrawlerResultJson[] =>
  AI_CRAWLERS.map((c) => ({ agent: c.agent, access, decidingLine: null, group: null }));

export async function checkRobots(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  origin: string,
  signal: AbortSignal,
): Promise<RobotsResult> {
  const robotsUrl = `${origin}/robots.txt`;
  const unreachable = (status: number | null, why: string): RobotsResult => ({
    robotsUrl,
    robotsState: 'unreachable',
    robotsStatus: status,
    robotsBytes: null,
    robotsNote: `${why}: crawlers take an unreachable robots.txt as "read nothing" (RFC 9309)`,
    crawlers: everyCrawler('blocked'),
  });
  let res;
  try {
    res = await fetcher.get(robotsUrl, {
      maxBytes: ROBOTS_MAX_BYTES,
      overflow: 'truncate',
      accept: 'text/plain',
      signal,
    });
  } catch (err) {
    if (err instanceof SiteFetchError && err.kind !== 'refused')
      return unreachable(null, `robots.txt could not be read (${err.message})`);
    throw err;
  }
  if (res.status >= 500) {
    res.discard();
    return unreachable(res.status, `robots.txt answered ${res.status}`);
  }
  if (res.status !== 200) {
    res.discard();
    return {
      robotsUrl,
      robotsState: 'missing',
      robotsStatus: res.status,
      robotsBytes: null,
      robotsNote: `robots.txt answered ${res.status}: no rules, every crawler may read everything`,
      crawlers: everyCrawler('allowed'),
    };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    if (err instanceof SiteFetchError) return unreachable(200, `robots.txt could not be read in full (${err.message})`);
    throw err;
  }
  const robots = await reader.robots(
    { url: robotsUrl, text, truncated: res.truncated },
    AI_CRAWLERS.map((c) => c.agent),
  );
  const notes = [
    res.truncated
      ? `robots.txt is larger than ${ROBOTS_MAX_BYTES / 1024} KiB; like crawlers, only its first ${ROBOTS_MAX_BYTES / 1024} KiB were read (RFC 9309)`
      : null,
    robots.unreadLines > 0
      ? `${robots.unreadLines.toLocaleString('en-US')} lines are not robots.txt rules and were ignored`
      : null,
    ...robots.notes,
  ].filter(Boolean);
  return {
    robotsUrl,
    robotsState: 'found',
    robotsStatus: 200,
    robotsBytes: Buffer.byteLength(text),
    robotsNote: notes.length ? notes.join('; ') : null,
    crawlers: AI_CRAWLERS.map((c, i) => ({ agent: c.agent, ...(robots.access[i] as CrawlerAccess) })),
  };
}

export async function checkLlmsTxt(
  fetcher: SiteFetcher,
  reader: SiteFileReader,
  origin: string,
  signal: AbortSignal,
): Promise<LlmsResult> {
  const llmsUrl = `${origin}/llms.txt`;
  const result = (
    state: LlmsResult['llmsState'],
    status: number | null,
    note: string | null,
    title: string | null = null,
    links: number | null = null,
  ): LlmsResult => ({
    llmsUrl,
    llmsState: state,
    llmsStatus: status,
    llmsTitle: title,
    llmsLinks: links,
    llmsNote: note,
  });
  try {
    const res = await fetcher.get(llmsUrl, {
      maxBytes: LLMS_TXT_MAX_BYTES,
      accept: 'text/markdown, text/plain;q=0.9, */*;q=0.5',
      signal,
    });
    if (res.status !== 200) {
      res.discard();
      return result(
        'missing',
        res.status,
        res.status === 404 || res.status === 410 ? null : `llms.txt answered ${res.status}`,
      );
    }
    const text = await res.text();
    try {
      const reading = await reader.llmsTxt(text, res.contentType);
      // What it said, so a later check can tell that it changed (llms_txt.changed).
      return {
        ...result(reading.state, 200, reading.note, reading.title, reading.links),
        llmsSha256: createHash('sha256').update(text).digest('hex'),
      };
    } catch (err) {
      if (err instanceof SiteFileError) return result('invalid', 200, err.message);
      throw err;
    }
  } catch (err) {
    if (!(err instanceof SiteFetchError)) throw err;
    // Too large, or sending us somewhere we never go: there is a file, and no assistant can use it.
    if (err.kind === 'too-large' || err.kind === 'refused' || err.kind === 'encoding')
      return result('invalid', null, err.message);
    return result('missing', null, `llms.txt could not be read (${err.message})`);
  }
}

export async function runCrawlerCheck(
  ctx: AppContext,
  siteId: number,
  checkId: number,
  options: { fetcher?: SiteFetcher; reader?: SiteFileReader } = {},
): Promise<{ state: 'done' | 'failed' | 'skipped'; error?: string } | Busy> {
  return withSiteLock(
    ctx,
    siteId,
    async (lost) => {
      const site = await claimSiteJob(ctx, 'crawlerChecks', siteId, checkId);
      if (!site) return { state: 'skipped' };
      const log = ctx.logger.child({ siteId, checkId });
      const fetcher = options.fetcher ?? siteFetcherFor(ctx.config, log);
      const reader = options.reader ?? siteFileReaderFor(ctx.config, ctx.siteFilePool());
      const origin = siteOrigin(site);
      try {
        const [robots, llms] = await Promise.all([
          checkRobots(fetcher, reader, origin, lost),
          checkLlmsTxt(fetcher, reader, origin, lost),
        ]);
        const { crawlers, ...robotsFields } = robots;
        // The result and the webhook events it causes (access or llms.txt changed) in one transaction.
        const deliveries = await ctx.db.transaction().execute(async (trx) => {
          await trx
            .updateTable('crawlerChecks')
            .set({
              status: 'done',
              ...robotsFields,
              ...llms,
              crawlers: JSON.stringify(crawlers),
              finishedAt: ctx.clock.now(),
            })
            .where('id', '=', checkId)
            .execute();
          return recordCrawlerEvents(ctx, trx, siteId, checkId);
        });
        await dispatch(ctx, deliveries);
        log.info(
          {
            robots: robots.robotsState,
            llmsTxt: llms.llmsState,
            blocked: crawlers.filter((c) => c.access === 'blocked').length,
          },
          'crawler check done',
        );
        return { state: 'done' };
      } catch (err) {
        const expected = err instanceof SiteFetchError || err instanceof SiteFileError;
        const message = expected
          ? err.message
          : `the check stopped on an internal error (${(err as Error).message?.slice(0, 200)})`;
        if (expected) log.warn({ reason: message }, 'crawler check failed');
        else log.error({ err }, 'crawler check failed');
        await ctx.db
          .updateTable('crawlerChecks')
          .set({ status: 'failed', error: message, finishedAt: ctx.clock.now() })
          .where('id', '=', checkId)
          .execute();
        return { state: 'failed', error: message };
      }
    },
    'crawlers',
  );
}
