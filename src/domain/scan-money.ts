import { sql, type Transaction } from 'kysely';
import type { AppContext } from '../context.ts';
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

class Refused extends Error {
  readonly reason: Extract<StopReason, 'budget' | 'cap' | 'balance'>;
  constructor(reason: Extract<StopReason, 'budget' | 'cap' | 'balance'>) {
    super(reason);
    this.reason = reason;
  }
}

export async function reserve(ctx: AppContext, ref: ScanMoneyRef, price: Micros): Promise<Reservation> {
  const month = monthOf(ctx.clock.now());
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const org = await trx
        .updateTable('orgs')
        .set((eb) => ({ reservedMicros: eb('reservedMicros', '+', price) }))
        .where('id', '=', ref.orgId)
        .where(sql<boolean>`balance_micros - reserved_micros >= ${price}`)
        .returning('id')
        .executeTakeFirst();
      if (!org) throw new Refused('balance');
      await trx.insertInto('siteSpend').values({ siteId: ref.siteId, month }).onConflict((oc) => oc.doNothing()).execute();
      const site = await trx
        .updateTable('siteSpend')
        .set((eb) => ({ reservedMicros: eb('reservedMicros', '+', price) }))
        .where('siteId', '=', ref.siteId)
        .where('month', '=', month)
        .where(sql<boolean>`(SELECT monthly_cap_micros FROM sites WHERE id = ${ref.siteId}) IS NULL
          OR spent_micros + reserved_micros + ${price} <= (SELECT monthly_cap_micros FROM sites WHERE id = ${ref.siteId})`)
        .returning('siteId')
        .executeTakeFirst();
      if (!site) throw new Refused('cap');
      const scan = await trx
        .updateTable('scans')
        .set((eb) => ({ reservedMicros: eb('reservedMicros', '+', price) }))
        .where('id', '=', ref.scanId)
        .where(sql<boolean>`spent_micros + reserved_micros + ${price} <= budget_micros`)
        .returning('id')
        .executeTakeFirst();
      if (!scan) throw new Refused('budget');
    });
    return { ok: true };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, reason: err.reason };
    throw err;
  }
}

/**
 * Turns a reservation into a charge, inside the transaction that stores the
 * answer. The site's spend counts in the month the price was reserved in, so
 * a call that straddles midnight at a month's end settles where it reserved.
 */
export async function settle(trx: Transaction<Database>, ref: ScanMoneyRef, price: Micros, answerId: number, reservedAt: Date, description: string): Promise<void> {
  const month = monthOf(reservedAt);
  const org = await trx
    .updateTable('orgs')
    .set((eb) => ({ balanceMicros: eb('balanceMicros', '-', price), reservedMicros: eb('reservedMicros', '-', price) }))
    .where('id', '=', ref.orgId)
    .returning('balanceMicros')
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('siteSpend')
    .set((eb) => ({ spentMicros: eb('spentMicros', '+', price), reservedMicros: eb('reservedMicros', '-', price) }))
    .where('siteId', '=', ref.siteId)
    .where('month', '=', month)
    .execute();
  await trx
    .updateTable('scans')
    .set((eb) => ({ spentMicros: eb('spentMicros', '+', price), reservedMicros: eb('reservedMicros', '-', price) }))
    .where('id', '=', ref.scanId)
    .execute();
  await trx
    .insertInto('ledgerEntries')
    .values({
      orgId: ref.orgId,
      kind: 'charge',
      amountMicros: -price,
      balanceAfterMicros: org.balanceMicros,
      siteId: ref.siteId,
      scanId: ref.scanId,
      answerId,
      description,
    })
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
    const scan = await trx.selectFrom('scans').select('reservedMicros').where('id', '=', ref.scanId).forUpdate().executeTakeFirstOrThrow();
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
