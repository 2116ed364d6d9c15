import type { Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
import { preparedQuery } from '../db/database.ts';
import type { Database, StopReason } from '../db/schema.ts';
import type { Micros } from '../money.ts';

/**
 * Scan money. Before each assistant call its price is reserved against the
 * scan's budget, the site's monthly cap and the workspace's available balance,
 * each by a conditional update in one transaction (rows locked in the fixed
 * order org, site month, scan). A stored answer turns its reservation into a
 * charge (a ledger entry, unique per answer); a failed call releases it. So
 * with any number of workers no scan passes its budget, no cap is passed and
 * the balance never goes negative.
 */

export interface ScanMoneyRef {
  scanId: number;
  siteId: number;
  orgId: number;
}

export const monthOf = (at: Date) => `${at.toISOString().slice(0, 7)}-01`;

export type Reservation = { ok: true } | { ok: false; reason: Extract<StopReason, 'budget' | 'cap' | 'balance'> };

export async function reserve(ctx: AppContext, ref: ScanMoneyRef, price: Micros): Promise<Reservation> {
  const [row] = await preparedQuery<{ result: string }>(ctx.db, 'reserve-scan-money', 'SELECT reserve_scan_money($1, $2, $3, $4, $5) AS result', [
    ref.orgId,
    ref.siteId,
    monthOf(ctx.clock.now()),
    ref.scanId,
    price,
  ]);
  const result = row?.result;
  if (result === 'ok') return { ok: true };
  if (result === 'budget' || result === 'cap' || result === 'balance') return { ok: false, reason: result };
  throw new Error(`reserve_scan_money answered ${String(result)}`);
}

export interface Charge {
  answerId: number;
  priceMicros: Micros;
  reservedAt: Date;
  description: string;
}

/**
 * Turns reservations into charges, inside the transaction that stores their
 * answers: one ledger entry per answer, one update per money row. A site's
 * spend counts in the month the price was reserved in, so a call that
 * straddles midnight at a month's end settles where it reserved.
 */
export async function settle(trx: Transaction<Database>, ref: ScanMoneyRef, charges: Charge[]): Promise<void> {
  const paid = charges.filter((c) => c.priceMicros > 0);
  if (paid.length === 0) return;
  const total = paid.reduce((sum, c) => sum + c.priceMicros, 0);
  const org = await trx
    .updateTable('orgs')
    .set((eb) => ({ balanceMicros: eb('balanceMicros', '-', total), reservedMicros: eb('reservedMicros', '-', total) }))
    .where('id', '=', ref.orgId)
    .returning('balanceMicros')
    .executeTakeFirstOrThrow();
  const byMonth = new Map<string, Micros>();
  for (const c of paid) byMonth.set(monthOf(c.reservedAt), (byMonth.get(monthOf(c.reservedAt)) ?? 0) + c.priceMicros);
  for (const [month, amount] of byMonth) {
    await trx
      .updateTable('siteSpend')
      .set((eb) => ({ spentMicros: eb('spentMicros', '+', amount), reservedMicros: eb('reservedMicros', '-', amount) }))
      .where('siteId', '=', ref.siteId)
      .where('month', '=', month)
      .execute();
  }
  await trx
    .updateTable('scans')
    .set((eb) => ({ spentMicros: eb('spentMicros', '+', total), reservedMicros: eb('reservedMicros', '-', total) }))
    .where('id', '=', ref.scanId)
    .execute();
  // Each entry carries the balance after it, as if the charges were taken one by one.
  let after = org.balanceMicros + total;
  await trx
    .insertInto('ledgerEntries')
    .values(
      paid.map((c) => {
        after -= c.priceMicros;
        return { orgId: ref.orgId, kind: 'charge' as const, amountMicros: -c.priceMicros, balanceAfterMicros: after, siteId: ref.siteId, scanId: ref.scanId, answerId: c.answerId, description: c.description };
      }),
    )
    .execute();
}

/** Gives a reservation back when its call failed or was not made. */
export async function release(ctx: AppContext, ref: ScanMoneyRef, price: Micros, reservedAt: Date): Promise<void> {
  if (price <= 0) return;
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('orgs')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', price) }))
      .where('id', '=', ref.orgId)
      .execute();
    await trx
      .updateTable('siteSpend')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', price) }))
      .where('siteId', '=', ref.siteId)
      .where('month', '=', monthOf(reservedAt))
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
export async function releaseScanReservations(ctx: AppContext, ref: ScanMoneyRef, keepMicros: Micros = 0): Promise<Micros> {
  return ctx.db.transaction().execute(async (trx) => {
    const scan = await trx.selectFrom('scans').select('reservedMicros').where('id', '=', ref.scanId).forNoKeyUpdate().executeTakeFirstOrThrow();
    const freed = scan.reservedMicros - keepMicros;
    let left = freed;
    if (left <= 0) return 0;
    await trx
      .updateTable('orgs')
      .set((eb) => ({ reservedMicros: eb('reservedMicros', '-', freed) }))
      .where('id', '=', ref.orgId)
      .execute();
    const months = await trx.selectFrom('siteSpend').select(['month', 'reservedMicros']).where('siteId', '=', ref.siteId).where('reservedMicros', '>', 0).orderBy('month', 'desc').execute();
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
