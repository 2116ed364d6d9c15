import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import type { ScanRow } from '../../db/schema.ts';
import { utcMonthFirstDay } from '../../dates.ts';
import { microsToUsd, usdToMicros, type Micros } from '../../money.ts';
import type { AlertSettingsInput } from './schemas.ts';
import { draft, type EventDraft, type EventType } from './event-types.ts';

/**
 * budget.cap_reached and balance.low, checked once at a scan's end (in the
 * transaction that ends it) rather than per answer: the per-answer money path
 * (purse.ts, purse-sql.ts) stays as cheap as it was, and a scan stops at its cap
 * anyway. The cap fires once per site and month (its dedupe key); the
 * balance once per crossing: its key is the last top-up, so after a top-up
 * the next fall under the threshold fires again.
 */

/** The default threshold: this share of the last top-up. */
export const DEFAULT_THRESHOLD_SHARE = 0.1;

export interface BalanceThreshold {
  thresholdMicros: Micros;
  from: 'setting' | 'last-top-up';
  lastTopUp: { id: number; amountMicros: Micros } | null;
  balanceMicros: Micros;
  settingMicros: Micros | null;
}

/** The workspace's balance and the threshold in force: its setting, else 10% of its last top-up; null when neither exists. */
export async function balanceThreshold(db: Executor, orgId: number): Promise<BalanceThreshold | null> {
  const [org, topUp] = await Promise.all([
    db.selectFrom('orgs').select(['balanceMicros', 'balanceAlertMicros']).where('id', '=', orgId).executeTakeFirst(),
    db
      .selectFrom('ledgerEntries')
      .select(['id', 'amountMicros'])
      .where('orgId', '=', orgId)
      .where('kind', '=', 'topup')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst(),
  ]);
  if (!org) return null;
  const lastTopUp = topUp ? { id: topUp.id, amountMicros: topUp.amountMicros } : null;
  const base = { lastTopUp, balanceMicros: org.balanceMicros, settingMicros: org.balanceAlertMicros };
  if (org.balanceAlertMicros !== null) return { ...base, thresholdMicros: org.balanceAlertMicros, from: 'setting' };
  if (!lastTopUp) return null;
  return {
    ...base,
    thresholdMicros: Math.round(lastTopUp.amountMicros * DEFAULT_THRESHOLD_SHARE),
    from: 'last-top-up',
  };
}

/** The money events a scan's end may fire, read in its transaction. */
export async function moneyDrafts(
  db: Executor,
  scan: ScanRow,
  site: { id: number; name: string; monthlyCapMicros: number | null },
  link: string,
  listened: Set<EventType>,
  now: Date,
): Promise<EventDraft[]> {
  const out: EventDraft[] = [];
  if (listened.has('budget.cap_reached') && site.monthlyCapMicros !== null) {
    const month = utcMonthFirstDay(now);
    const spend = await db
      .selectFrom('siteSpend')
      .select('spentMicros')
      .where('siteId', '=', site.id)
      .where('month', '=', month)
      .executeTakeFirst();
    const spent = spend?.spentMicros ?? 0;
    if (spent >= site.monthlyCapMicros || scan.stopReason === 'cap') {
      out.push(
        draft('budget.cap_reached', scan.orgId, site.id, `budget.cap_reached:${site.id}:${month}`, {
          projectId: site.id,
          projectName: site.name,
          link,
          month,
          capUsd: microsToUsd(site.monthlyCapMicros),
          spentUsd: microsToUsd(spent),
          scanId: scan.id,
        }),
      );
    }
  }
  if (listened.has('balance.low')) {
    const t = await balanceThreshold(db, scan.orgId);
    if (t && t.balanceMicros < t.thresholdMicros) {
      out.push(
        draft('balance.low', scan.orgId, null, `balance.low:${scan.orgId}:${t.lastTopUp?.id ?? 0}`, {
          projectId: site.id,
          balanceUsd: microsToUsd(t.balanceMicros),
          thresholdUsd: microsToUsd(t.thresholdMicros),
          thresholdFrom: t.from,
          lastTopUpUsd: t.lastTopUp ? microsToUsd(t.lastTopUp.amountMicros) : null,
          scanId: scan.id,
        }),
      );
    }
  }
  return out;
}

export async function alertSettings(ctx: AppContext, orgId: number) {
  const t = await balanceThreshold(ctx.db, orgId);
  const org = await ctx.db
    .selectFrom('orgs')
    .select(['balanceMicros', 'balanceAlertMicros'])
    .where('id', '=', orgId)
    .executeTakeFirstOrThrow();
  return {
    balanceLowUsd: org.balanceAlertMicros === null ? null : microsToUsd(org.balanceAlertMicros),
    effectiveBalanceLowUsd: t ? microsToUsd(t.thresholdMicros) : null,
    lastTopUpUsd: t?.lastTopUp ? microsToUsd(t.lastTopUp.amountMicros) : null,
    balanceUsd: microsToUsd(org.balanceMicros),
  };
}

export async function setAlertSettings(ctx: AppContext, orgId: number, input: AlertSettingsInput) {
  await ctx.db
    .updateTable('orgs')
    .set({ balanceAlertMicros: input.balanceLowUsd === null ? null : usdToMicros(input.balanceLowUsd) })
    .where('id', '=', orgId)
    .execute();
  return alertSettings(ctx, orgId);
}
