import type { AppContext } from '../../context.ts';
import type { CrawlerCheckRow, CrawlerResultJson, SiteRow } from '../../db/schema.ts';
import { AI_CRAWLERS } from '../../web/ai-crawlers.ts';

/**
 * GET /projects/:id/crawlers (and the answer of POST crawlers/check): the
 * latest finished check per AI crawler (access, the deciding line), the
 * robots.txt and llms.txt states, the latest check's own state (it may be
 * running or have failed), and the history of finished checks with what
 * changed from one to the next.
 */

/** Finished checks listed in the history; nightly checks keep every one. */
export const HISTORY_SHOWN = 30;

const byAgent = new Map(AI_CRAWLERS.map((c) => [c.agent, c]));

function reasonFor(row: CrawlerCheckRow, item: CrawlerResultJson): string | null {
  if (row.robotsState === 'missing') return 'no robots.txt rules: it may read everything';
  if (row.robotsState === 'unreachable')
    return 'robots.txt is unreachable: crawlers read nothing until it answers (RFC 9309)';
  if (item.group === null) return 'no group of robots.txt names it or "*": it may read everything';
  if (item.access === 'allowed' && item.decidingLine === null) return `its group ("${item.group}") disallows nothing`;
  return null;
}

function crawlerItems(row: CrawlerCheckRow) {
  return row.crawlers.map((item) => {
    const known = byAgent.get(item.agent);
    return {
      agent: item.agent,
      company: known?.company ?? null,
      kind: known?.kind ?? null,
      purpose: known?.purpose ?? null,
      access: item.access,
      decidingLine: item.decidingLine,
      group: item.group,
      reason: reasonFor(row, item),
    };
  });
}

function checkState(row: CrawlerCheckRow) {
  return {
    id: row.id,
    state: row.status,
    trigger: row.trigger,
    requestedAt: row.requestedAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    error: row.error,
  };
}

function historyItem(row: CrawlerCheckRow, before: CrawlerCheckRow | undefined) {
  const count = (access: string) => row.crawlers.filter((c) => c.access === access).length;
  const previous = new Map((before?.crawlers ?? []).map((c) => [c.agent, c.access]));
  return {
    id: row.id,
    checkedAt: row.finishedAt,
    trigger: row.trigger,
    robots: row.robotsState,
    llmsTxt: row.llmsState,
    allowed: count('allowed'),
    partial: count('partial'),
    blocked: count('blocked'),
    // What moved since the finished check before it (none for the oldest shown).
    changes: before
      ? row.crawlers.flatMap((c) => {
          const from = previous.get(c.agent);
          return from && from !== c.access ? [{ agent: c.agent, from, to: c.access }] : [];
        })
      : [],
    llmsTxtChange: before && before.llmsState !== row.llmsState ? { from: before.llmsState, to: row.llmsState } : null,
  };
}

export async function crawlerReport(ctx: AppContext, site: SiteRow) {
  const [latest, done] = await Promise.all([
    ctx.db
      .selectFrom('crawlerChecks')
      .selectAll()
      .where('siteId', '=', site.id)
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
    ctx.db
      .selectFrom('crawlerChecks')
      .selectAll()
      .where('siteId', '=', site.id)
      .where('status', '=', 'done')
      .orderBy('finishedAt', 'desc')
      .orderBy('id', 'desc')
      .limit(HISTORY_SHOWN + 1)
      .execute(),
  ]);
  const current = done[0];
  return {
    check: latest ? checkState(latest) : null,
    checkedAt: current?.finishedAt ?? null,
    robots: current
      ? {
          url: current.robotsUrl,
          state: current.robotsState,
          status: current.robotsStatus,
          bytes: current.robotsBytes,
          note: current.robotsNote,
        }
      : null,
    crawlers: current ? crawlerItems(current) : [],
    llmsTxt: current
      ? {
          state: current.llmsState,
          checkedAt: current.finishedAt,
          url: current.llmsUrl,
          status: current.llmsStatus,
          title: current.llmsTitle,
          links: current.llmsLinks,
          note: current.llmsNote,
        }
      : null,
    history: done.slice(0, HISTORY_SHOWN).map((row, i) => historyItem(row, done[i + 1])),
  };
}
