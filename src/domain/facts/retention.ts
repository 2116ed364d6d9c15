import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { startOfUtcMonth, utcMonthFirstDay } from '../../dates.ts';
import { BUSY, withSiteLock } from '../common/index.ts';
import { rebuildRollups } from './rollups.ts';
import { answerMonths, dropAnswerMonth, ensureAnswerMonths, MONTHS_AHEAD } from './partitions.ts';

/**
 * Retention (issue 17): a workspace keeps everything (`retentionMonths`
 * null, the default) or the current month and that many months before it.
 * Months are the answers' partition key, their scan's month, so retention
 * drops whole months of answers with their facts:
 *
 * - a month no workspace keeps goes as a whole partition (detached and
 *   dropped: no row-by-row delete, no bloat);
 * - a month some workspaces still keep loses only the rows of the
 *   workspaces that do not (one DELETE per site, pruned to those months).
 *
 * Rollups follow the answers that remain: the site's rollups are rebuilt
 * from its facts in the transaction that deletes them (after a partition
 * drop, in a transaction of their own, marked in retention_rebuilds until
 * done), under the site's lock so no scan or reanalysis writes them
 * meanwhile. Reports then show nothing for dropped months rather than
 * numbers no stored answer supports; reanalysis, which rebuilds rollups
 * from facts, agrees with them (docs/scaling.md "Data that grows").
 *
 * The ledger is money history and is never touched: its entries keep the
 * ids of dropped answers. Scans stay, with their counts and spend.
 */

export interface RetentionReport {
  /** Partitions made ahead (this month and the next ones). */
  monthsMade: string[];
  /** Months dropped as whole partitions. */
  monthsDropped: string[];
  /** Months no workspace keeps whose drop waited too long for its lock; tried again next run. */
  monthsLocked: string[];
  /** Per site: answers deleted from months its workspace no longer keeps. */
  deleted: { orgId: number; siteId: number; before: string; answers: number }[];
  /** Sites whose rollups were rebuilt. */
  rebuilt: number[];
  /** Sites another job held (a scan, a reanalysis): done next run. */
  busy: number[];
}

/** The first month a workspace keeping `months` months before the current one keeps. */
export function firstKeptMonth(now: Date, months: number): string {
  return utcMonthFirstDay(startOfUtcMonth(now, months));
}

export async function runRetentionTick(ctx: AppContext): Promise<RetentionReport> {
  const db = ctx.db;
  const now = ctx.clock.now();
  const report: RetentionReport = {
    monthsMade: [],
    monthsDropped: [],
    monthsLocked: [],
    deleted: [],
    rebuilt: [],
    busy: [],
  };
  report.monthsMade = await ensureAnswerMonths(db, now, startOfUtcMonth(now, -MONTHS_AHEAD));

  const sites = await db
    .selectFrom('sites as s')
    .innerJoin('orgs as o', 'o.id', 's.orgId')
    .select(['s.id', 's.orgId', 'o.retentionMonths'])
    .where('o.retentionMonths', 'is not', null)
    .orderBy('s.id')
    .execute();
  const cutoff = new Map(sites.map((s) => [s.id, firstKeptMonth(now, s.retentionMonths as number)]));
  const orgOf = new Map(sites.map((s) => [s.id, s.orgId]));

  // 1. Months no workspace keeps: every site with rows in them has a later cutoff.
  const current = utcMonthFirstDay(now);
  for (const month of (await answerMonths(db)).filter((m) => m < current)) {
    const dropping = sites.filter((s) => (cutoff.get(s.id) as string) > month).map((s) => s.id);
    if (dropping.length === 0) continue;
    if (await keptByOthers(ctx, month, dropping)) continue;
    const affected = await sitesWithRows(ctx, month, dropping);
    if (affected.length) {
      await db
        .insertInto('retentionRebuilds')
        .values(affected.map((siteId) => ({ siteId })))
        .onConflict((oc) => oc.column('siteId').doNothing())
        .execute();
    }
    try {
      await db.transaction().execute((trx) => dropAnswerMonth(trx, month));
      report.monthsDropped.push(month);
    } catch (err) {
      // 55P03: lock_timeout, a long reader held the table; the marks stay and cost a no-op rebuild.
      if ((err as { code?: string }).code !== '55P03') throw err;
      ctx.logger.warn({ month }, 'retention: dropping a month waited too long for its lock; next run');
      report.monthsLocked.push(month);
    }
  }

  // 2. Per site: rows of months its workspace no longer keeps, and rollups to rebuild.
  const pending = new Set((await db.selectFrom('retentionRebuilds').select('siteId').execute()).map((r) => r.siteId));
  const candidates = [...new Set([...sites.map((s) => s.id), ...pending])].sort((a, b) => a - b);
  for (const siteId of candidates) {
    const before = cutoff.get(siteId);
    const old = before !== undefined && (await hasRowsBefore(ctx, siteId, before));
    if (!old && !pending.has(siteId)) continue;
    const answers = await withSiteLock(ctx, siteId, () =>
      db.transaction().execute(async (trx) => {
        let n = 0;
        if (old) {
          await trx.deleteFrom('answerFacts').where('siteId', '=', siteId).where('month', '<', before).execute();
          const res = await trx
            .deleteFrom('answers')
            .where('siteId', '=', siteId)
            .where('month', '<', before)
            .executeTakeFirst();
          n = Number(res.numDeletedRows);
        }
        await rebuildRollups(trx, siteId, 'all');
        await trx.deleteFrom('retentionRebuilds').where('siteId', '=', siteId).execute();
        return n;
      }),
    );
    if (answers === BUSY) {
      report.busy.push(siteId);
      continue;
    }
    if (old) report.deleted.push({ orgId: orgOf.get(siteId) as number, siteId, before, answers });
    report.rebuilt.push(siteId);
  }
  // Autovacuum analyzes partitions, never the partitioned parents; the planner reads both.
  if (report.monthsMade.length || report.monthsDropped.length || report.deleted.length)
    await sql`ANALYZE answers, answer_facts`.execute(db);
  ctx.logger.info(
    {
      made: report.monthsMade,
      dropped: report.monthsDropped,
      sites: report.deleted.length,
      rebuilt: report.rebuilt.length,
      busy: report.busy.length,
    },
    'retention done',
  );
  return report;
}

/** Whether a site not in `dropping` has an answer in the month (one index probe per such site). */
async function keptByOthers(ctx: AppContext, month: string, dropping: number[]): Promise<boolean> {
  const { rows } = await sql<{ kept: boolean }>`
    SELECT EXISTS (
      SELECT 1 FROM sites s CROSS JOIN LATERAL (SELECT 1 FROM answers a WHERE a.month = ${month}::date AND a.site_id = s.id LIMIT 1) x
       WHERE s.id <> ALL(${dropping}::int[])) AS kept`.execute(ctx.db);
  return rows[0]?.kept ?? false;
}

/** The sites of `candidates` with an answer in the month. */
async function sitesWithRows(ctx: AppContext, month: string, candidates: number[]): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    SELECT s.id FROM unnest(${candidates}::int[]) AS s(id)
     WHERE EXISTS (SELECT 1 FROM answers a WHERE a.month = ${month}::date AND a.site_id = s.id)
     ORDER BY 1`.execute(ctx.db);
  return rows.map((r) => r.id);
}

async function hasRowsBefore(ctx: AppContext, siteId: number, month: string): Promise<boolean> {
  const row = await ctx.db
    .selectFrom('answers')
    .select('id')
    .where('siteId', '=', siteId)
    .where('month', '<', month)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
