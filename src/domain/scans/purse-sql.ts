import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import { preparedQuery } from '../../db/database.ts';
import type { StopReason } from '../../db/schema.ts';
import type { Micros } from '../../money.ts';
import { utcMonthFirstDay } from '../../dates.ts';

/**
 * Scan money. Before each assistant call its price is reserved against the
 * scan's budget, the site's monthly cap and the workspace's available balance,
 * each by a conditional update in one transaction (rows locked in the fixed
 * order org, site month, scan). A stored answer turns its reservation into a
 * charge (a ledger entry, unique per answer); a failed call releases it. So
 * with any number of workers no scan passes its budget, no cap is passed and
 * the balance never goes negative. These are the purse's SQL: only
 * ./purse.ts, the one owner of a scan's money, calls them.
 */

export interface ScanMoneyRef {
  scanId: number;
  siteId: number;
  orgId: number;
}

export type LimitReason = Extract<StopReason, 'budget' | 'cap' | 'balance'>;

/** `granted` of the units asked for are held; when fewer, `limitedBy` says which limit stopped the rest. */
export interface Reservation {
  granted: number;
  limitedBy: LimitReason | null;
}

/**
 * Holds the price of up to `units` calls at once: as many as the workspace
 * balance, the site's monthly cap and the scan's budget all allow (see
 * migration 20261122T0730), so exactly the calls that fit are made.
 */
export async function reserveUnits(
  ctx: AppContext,
  ref: ScanMoneyRef,
  price: Micros,
  units: number,
): Promise<Reservation> {
  const [row] = await preparedQuery<{ granted: number; limitedBy: string | null }>(
    ctx.db,
    'reserve-scan-units',
    'SELECT granted, limited_by AS "limitedBy" FROM reserve_scan_units($1, $2, $3, $4, $5, $6)',
    [ref.orgId, ref.siteId, utcMonthFirstDay(ctx.clock.now()), ref.scanId, price, units],
  );
  if (!row) throw new Error('reserve_scan_units answered nothing');
  const limitedBy = row.limitedBy;
  if (limitedBy !== null && limitedBy !== 'budget' && limitedBy !== 'cap' && limitedBy !== 'balance')
    throw new Error(`reserve_scan_units answered ${limitedBy}`);
  return { granted: row.granted, limitedBy };
}

export interface Charge {
  answerId: number;
  priceMicros: Micros;
  reservedAt: Date;
  description: string;
}

/**
 * Turns the reservations of stored answers into charges: one ledger entry per
 * answer (unique on the answer, so a charge can never be taken twice), one
 * update of each money row, in one database call right after the answers'
 * own transaction. A site's spend counts in the month its price was reserved.
 */
export async function settle(ctx: AppContext, ref: ScanMoneyRef, charges: Charge[]): Promise<void> {
  const paid = charges.filter((c) => c.priceMicros > 0);
  if (paid.length === 0) return;
  const json = JSON.stringify(
    paid.map((c) => ({
      answerId: c.answerId,
      price: c.priceMicros,
      month: utcMonthFirstDay(c.reservedAt),
      description: c.description,
    })),
  );
  await preparedQuery(ctx.db, 'settle-scan-money', 'SELECT settle_scan_money($1, $2, $3, $4::jsonb)', [
    ref.orgId,
    ref.siteId,
    ref.scanId,
    json,
  ]);
}

/**
 * Charges stored answers that have no ledger entry yet: a worker that died
 * between storing answers and settling them. Their reservations are still
 * held, so this runs before stale reservations are released.
 */
export async function settleMissing(ctx: AppContext, ref: ScanMoneyRef): Promise<number> {
  const rows = await ctx.db
    .selectFrom('answers as a')
    .leftJoin('ledgerEntries as l', 'l.answerId', 'a.id')
    .select(['a.id', 'a.costMicros', 'a.askedAt', 'a.provider', 'a.model'])
    .where('a.scanId', '=', ref.scanId)
    .where('a.error', 'is', null)
    .where('a.costMicros', '>', 0)
    .where('l.id', 'is', null)
    .execute();
  await settle(
    ctx,
    ref,
    rows.map((r) => ({
      answerId: r.id,
      priceMicros: r.costMicros,
      reservedAt: r.askedAt,
      description: `${r.provider} ${r.model} answer`,
    })),
  );
  return rows.length;
}

/** Gives a reservation back when its call failed or was not made. */
export async function release(ctx: AppContext, ref: ScanMoneyRef, price: Micros, reservedAt: Date): Promise<void> {
  if (price <= 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    // Like reservations, a release need not wait for a WAL flush (see migration 20261122T0640).
    await sql`SET LOCAL synchronous_commit TO off`.execute(trx);
    await trx
      .updateTable('orgs')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', price) }))
      .where('id', '=', ref.orgId)
      .execute();
    await trx
      .updateTable('siteSpend')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', price) }))
      .where('siteId', '=', ref.siteId)
      .where('month', '=', utcMonthFirstDay(reservedAt))
      .execute();
    await trx
      .updateTable('scans')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', price) }))
      .where('id', '=', ref.scanId)
      .execute();
  });
}

/**
 * Releases whatever a scan still holds: its calls in flight died with a
 * crashed worker, or the scan ended. Only called by the holder of the site
 * lock, so no live call of this scan can still settle. The site's months are
 * drained newest first; a scan's reservations all lie in the months it ran.
 */
export async function releaseScanReservations(
  ctx: AppContext,
  ref: ScanMoneyRef,
  keepMicros: Micros = 0,
): Promise<Micros> {
  return ctx.db.transaction().execute(async (trx) => {
    const scan = await trx
      .selectFrom('scans')
      .select('reservedMicros')
      .where('id', '=', ref.scanId)
      .forNoKeyUpdate()
      .executeTakeFirstOrThrow();
    const freed = scan.reservedMicros - keepMicros;
    let left = freed;
    if (left <= 0) return 0;
    await trx
      .updateTable('orgs')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', freed) }))
      .where('id', '=', ref.orgId)
      .execute();
    const months = await trx
      .selectFrom('siteSpend')
      .select(['month', 'reservedMicros'])
      .where('siteId', '=', ref.siteId)
      .where('reservedMicros', '>', 0)
      .orderBy('month', 'desc')
      .execute();
    for (const m of months) {
      if (left <= 0) break;
      const take = Math.min(left, m.reservedMicros);
      await trx
        .updateTable('siteSpend')
        .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', take) }))
        .where('siteId', '=', ref.siteId)
        .where('month', '=', m.month)
        .execute();
      left -= take;
    }
    await trx.updateTable('scans').set({ reservedMicros: keepMicros }).where('id', '=', ref.scanId).execute();
    return freed;
  });
}
