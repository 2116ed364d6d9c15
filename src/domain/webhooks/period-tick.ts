import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { utcDay } from '../../dates.ts';
import { periodEnd, periodStart, previousPeriod } from '../common/index.ts';
import { periodChangeDrafts, type AlertPeriod } from './changes.ts';
import { dispatch, listenedTypes, recordEvents } from './outbox.ts';

/**
 * The `webhook-period-tick` job (daily, 00:30 UTC): for each site whose
 * workspace has a webhook, the week, month and quarter that just ended are
 * compared with the one before, and what changed for real fires (./changes.ts).
 * Each (site, period) is compared once: the comparison is recorded in the
 * transaction that writes its events (webhook_period_checks), so a tick run
 * twice, or again after a crash, fires nothing twice. A period is compared
 * within GRACE_DAYS of its end, so a tick missed for a day or two still
 * compares it, and a webhook created weeks later is not told of old news.
 */

export const ALERT_PERIODS: readonly AlertPeriod[] = ['week', 'month', 'quarter'];
const GRACE_DAYS = 3;
const SITES_PER_QUERY = 500;

/** The period of each kind that ended most recently before `today`, when it ended within the grace days. */
export function endedPeriods(today: string): { period: AlertPeriod; start: string }[] {
  return ALERT_PERIODS.flatMap((period) => {
    const ended = previousPeriod(period, periodStart(period, today));
    const daysSince =
      (Date.parse(`${today}T00:00:00Z`) - Date.parse(`${periodEnd(period, ended)}T00:00:00Z`)) / 86_400_000;
    return daysSince <= GRACE_DAYS ? [{ period, start: ended }] : [];
  });
}

/** Compares one site's ended period with the one before, once. Answers the deliveries written. */
export async function comparePeriod(
  ctx: AppContext,
  siteId: number,
  period: AlertPeriod,
  start: string,
): Promise<number> {
  const site = await ctx.db
    .selectFrom('sites')
    .select(['id', 'orgId', 'name'])
    .where('id', '=', siteId)
    .executeTakeFirst();
  if (!site) return 0;
  const listened = await listenedTypes(ctx.db, site.orgId, site.id);
  const link = `${ctx.config.publicBaseUrl}/projects/${site.id}/report?period=${period}&start=${start}`;
  const drafts = await periodChangeDrafts(ctx.db, site, period, start, link, listened);
  const ids = await ctx.db.transaction().execute(async (trx) => {
    const first = await trx
      .insertInto('webhookPeriodChecks')
      .values({ siteId, period, start, checkedAt: ctx.clock.now() })
      .onConflict((oc) => oc.doNothing())
      .returning('siteId')
      .executeTakeFirst();
    // Another run compared it first: its events are written.
    if (!first) return [];
    return recordEvents(trx, drafts, ctx.clock.now());
  });
  await dispatch(ctx, ids);
  return ids.length;
}

export async function runWebhookPeriodTick(ctx: AppContext): Promise<{ compared: number; deliveries: number }> {
  const today = utcDay(ctx.clock.now());
  let compared = 0;
  let deliveries = 0;
  for (const { period, start } of endedPeriods(today)) {
    let after = 0;
    for (;;) {
      // Sites with answers in the period, a webhook in their workspace, and not compared yet.
      const { rows } = await sql<{ siteId: number }>`
        SELECT s.id AS site_id FROM sites s
         WHERE s.id > ${after}
           AND EXISTS (SELECT 1 FROM rollup_model_period m WHERE m.site_id = s.id AND m.period = ${period} AND m.start = ${start})
           AND EXISTS (SELECT 1 FROM webhooks w WHERE w.org_id = s.org_id AND w.enabled)
           AND NOT EXISTS (SELECT 1 FROM webhook_period_checks c WHERE c.site_id = s.id AND c.period = ${period} AND c.start = ${start})
         ORDER BY s.id LIMIT ${SITES_PER_QUERY}`.execute(ctx.db);
      if (rows.length === 0) break;
      for (const { siteId } of rows) {
        try {
          deliveries += await comparePeriod(ctx, siteId, period, start);
          compared++;
        } catch (err) {
          // One site's failure must not stop the others; tomorrow's tick tries it again within the grace days.
          ctx.logger.error({ err, siteId, period, start }, 'period comparison failed');
        }
      }
      after = (rows.at(-1) as { siteId: number }).siteId;
    }
  }
  return { compared, deliveries };
}
