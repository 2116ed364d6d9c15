import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { CrawlerCheckRow, Database, SiteRow } from '../../db/schema.ts';
import { AI_CRAWLERS } from '../../web/ai-crawlers.ts';
import { draft, type EventDraft, type EventType } from './event-types.ts';
import { listenedTypes, recordEvents } from './outbox.ts';

/**
 * crawler.access_changed and llms_txt.changed, written by a crawler check in
 * the transaction that stores its result, against the site's previous check
 * that read the same file. A robots.txt that could not be read says nothing
 * about what changed (crawlers then read nothing, but the site's rules did
 * not move), so access is compared between checks that read it or found it
 * missing; llms.txt likewise between checks that got an answer.
 */

const companies = new Map(AI_CRAWLERS.map((c) => [c.agent, c.company]));
const readRobots = (c: CrawlerCheckRow) => c.robotsState === 'found' || c.robotsState === 'missing';
const readLlms = (c: CrawlerCheckRow) =>
  c.llmsState === 'present' ||
  c.llmsState === 'invalid' ||
  (c.llmsState === 'missing' && c.llmsStatus !== null && c.llmsStatus < 500);
const llmsSide = (c: CrawlerCheckRow) => ({ state: c.llmsState ?? 'missing', title: c.llmsTitle, links: c.llmsLinks });

async function previousCheck(
  trx: Transaction<Database>,
  siteId: number,
  checkId: number,
  read: (c: CrawlerCheckRow) => boolean,
): Promise<CrawlerCheckRow | null> {
  // A site's finished checks are few a day; the latest 30 hold the one wanted unless the file was unreadable for a month.
  const rows = await trx
    .selectFrom('crawlerChecks')
    .selectAll()
    .where('siteId', '=', siteId)
    .where('status', '=', 'done')
    .where('id', '<', checkId)
    .orderBy('id', 'desc')
    .limit(30)
    .execute();
  return rows.find(read) ?? null;
}

export async function crawlerDrafts(
  trx: Transaction<Database>,
  site: Pick<SiteRow, 'id' | 'orgId' | 'name'>,
  check: CrawlerCheckRow,
  link: string,
  listened: Set<EventType>,
): Promise<EventDraft[]> {
  const out: EventDraft[] = [];
  const aboutSite = { projectId: site.id, projectName: site.name, link };
  if (listened.has('crawler.access_changed') && readRobots(check)) {
    const before = await previousCheck(trx, site.id, check.id, readRobots);
    if (before) {
      const was = new Map(before.crawlers.map((c) => [c.agent, c.access]));
      const changes = check.crawlers.flatMap((c) => {
        const then = was.get(c.agent);
        return then && then !== c.access
          ? [
              {
                agent: c.agent,
                company: companies.get(c.agent) ?? null,
                before: then,
                after: c.access,
                decidingLine: c.decidingLine,
              },
            ]
          : [];
      });
      if (changes.length > 0) {
        out.push(
          draft('crawler.access_changed', site.orgId, site.id, `crawler.access_changed:check:${check.id}`, {
            ...aboutSite,
            checkId: check.id,
            previousCheckId: before.id,
            robotsUrl: check.robotsUrl,
            robots: {
              before: before.robotsState as 'found' | 'missing',
              after: check.robotsState as 'found' | 'missing',
            },
            changes,
          }),
        );
      }
    }
  }
  if (listened.has('llms_txt.changed') && readLlms(check)) {
    const before = await previousCheck(trx, site.id, check.id, readLlms);
    if (before) {
      const had = before.llmsState !== 'missing';
      const has = check.llmsState !== 'missing';
      const change =
        !had && has
          ? 'appeared'
          : had && !has
            ? 'vanished'
            : had && has && (before.llmsSha256 !== check.llmsSha256 || before.llmsState !== check.llmsState)
              ? 'changed'
              : null;
      if (change) {
        out.push(
          draft('llms_txt.changed', site.orgId, site.id, `llms_txt.changed:check:${check.id}`, {
            ...aboutSite,
            checkId: check.id,
            previousCheckId: before.id,
            url: check.llmsUrl,
            change,
            before: llmsSide(before),
            after: llmsSide(check),
          }),
        );
      }
    }
  }
  return out;
}

/**
 * Writes a finished check's events in its transaction (after its result is
 * stored there); answers the deliveries to queue once it commits. A failure
 * here rolls back to a savepoint and never fails the check.
 */
export async function recordCrawlerEvents(
  ctx: AppContext,
  trx: Transaction<Database>,
  siteId: number,
  checkId: number,
): Promise<number[]> {
  const site = await trx
    .selectFrom('sites')
    .select(['id', 'orgId', 'name'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  if (!site) return [];
  const listened = await listenedTypes(trx, site.orgId, site.id);
  if (!listened.has('crawler.access_changed') && !listened.has('llms_txt.changed')) return [];
  await sql`SAVEPOINT crawler_events`.execute(trx);
  try {
    const check = await trx.selectFrom('crawlerChecks').selectAll().where('id', '=', checkId).executeTakeFirstOrThrow();
    const drafts = await crawlerDrafts(
      trx,
      site,
      check,
      `${ctx.config.publicBaseUrl}/projects/${site.id}/crawlers`,
      listened,
    );
    const ids = await recordEvents(trx, drafts, ctx.clock.now());
    await sql`RELEASE SAVEPOINT crawler_events`.execute(trx);
    return ids;
  } catch (err) {
    await sql`ROLLBACK TO SAVEPOINT crawler_events`.execute(trx);
    ctx.logger.error({ err, checkId }, 'could not write the crawler check’s webhook events');
    return [];
  }
}
