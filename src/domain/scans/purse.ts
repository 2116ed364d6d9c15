import type { AppContext } from '../../context.ts';
import type { Micros } from '../../money.ts';
import {
  release,
  releaseScanReservations,
  reserveUnits,
  settle,
  settleMissing,
  type LimitReason,
  type Reservation,
  type ScanMoneyRef,
} from './purse-sql.ts';

export type { ScanMoneyRef };

/**
 * The purse: the one owner of a scan's money. Only it reserves, settles and
 * releases (through the SQL of ./purse-sql.ts); the run loop (./run.ts) and the
 * answer writer (./answer-writer.ts) ask it. A call's price is reserved
 * before the call (a lane's block, or a batch's items at once), turned into a
 * charge when its answer is stored, and released when the call failed, was
 * not made, or its answer was already stored.
 */
export interface ScanPurse {
  readonly ref: ScanMoneyRef;
  /** The money one provider lane holds for its synchronous calls (below). */
  lane(price: Micros, total: number, block: number): LanePurse;
  /** Holds the price of a batch's items at once: as many as every limit allows. */
  reserve(price: Micros, units: number): Promise<Reservation>;
  /** Gives one call's reservation back: it failed before it had an answer to store, or was never made. */
  release(price: Micros, reservedAt: Date): Promise<void>;
  /** After a batch of answers was stored: charges the answered and stored ones (one ledger entry each), releases the rest. */
  account(items: AccountedCall[]): Promise<void>;
  /** Gives back what these calls reserved, none of them charged: their answers could not be stored. */
  releaseAll(items: Pick<AccountedCall, 'priceMicros' | 'reservedAt'>[]): Promise<void>;
  /**
   * Squares the scan's money with what is stored, by the holder of the site
   * lock (a run resuming or ending, a scan failed for good): charges stored
   * answers left uncharged by a dead worker, then releases every reservation
   * but `keepMicros` (what submitted batches still hold).
   */
  squareUp(keepMicros?: Micros): Promise<void>;
}

/** One call as the answer writer hands it back. */
export interface AccountedCall {
  /** The stored answer's id; null when the answer was not stored (already there). */
  answerId: number | null;
  /** Whether the call answered (a failed call is stored, so it is not asked again, and not charged). */
  answered: boolean;
  priceMicros: Micros;
  reservedAt: Date;
  description: string;
}

export function scanPurse(ctx: AppContext, ref: ScanMoneyRef): ScanPurse {
  const giveBack = (price: Micros, reservedAt: Date) => release(ctx, ref, price, reservedAt);
  return {
    ref,
    lane: (price, total, block) => createLanePurse(ctx, ref, price, total, block),
    reserve: (price, units) => reserveUnits(ctx, ref, price, units),
    release: giveBack,
    async account(items) {
      await settle(
        ctx,
        ref,
        items.flatMap((i) =>
          i.answerId !== null && i.answered
            ? [
                {
                  answerId: i.answerId,
                  priceMicros: i.priceMicros,
                  reservedAt: i.reservedAt,
                  description: i.description,
                },
              ]
            : [],
        ),
      );
      for (const i of items) if (i.answerId === null || !i.answered) await giveBack(i.priceMicros, i.reservedAt);
    },
    async releaseAll(items) {
      for (const i of items) await giveBack(i.priceMicros, i.reservedAt).catch(() => undefined);
    },
    async squareUp(keepMicros = 0) {
      await settleMissing(ctx, ref);
      await releaseScanReservations(ctx, ref, keepMicros);
    },
  };
}

export type Take = { ok: true; reservedAt: Date } | { ok: false; reason: LimitReason };

export type LanePurse = ReturnType<typeof createLanePurse>;

interface Block {
  units: number;
  /** Charges of these units count in the month they were reserved in. */
  reservedAt: Date;
}

/**
 * The money one provider lane of a scan holds for its calls: reserved a block
 * at a time (up to `block` calls, never more than the lane still needs), one
 * unit taken per call. The next block is reserved when half of the current
 * one is taken, so calls rarely wait for a reservation. A call that fails
 * gives its unit back through the answer writer; units left when the lane
 * ends (budget, cap, cancel) are released by `close`, and a crashed worker's
 * by the resumed scan (`squareUp`). Once a reservation grants nothing, the
 * limit that refused it is the lane's stop reason.
 */
function createLanePurse(ctx: AppContext, ref: ScanMoneyRef, price: Micros, total: number, block: number) {
  const blocks: Block[] = [];
  let held = 0;
  let granted = 0;
  let stopped: LimitReason | null = null;
  let refilling: Promise<void> | null = null;

  async function refill(): Promise<void> {
    const want = Math.min(block, total - granted);
    if (want <= 0) return;
    const r = await reserveUnits(ctx, ref, price, want);
    if (r.granted === 0) stopped = r.limitedBy ?? 'budget';
    if (r.granted > 0) blocks.push({ units: r.granted, reservedAt: ctx.clock.now() });
    held += r.granted;
    granted += r.granted;
  }

  function startRefill(): Promise<void> {
    refilling ??= refill().finally(() => (refilling = null));
    return refilling;
  }

  return {
    async take(): Promise<Take> {
      for (;;) {
        const first = blocks[0];
        if (first) {
          if (--first.units === 0) blocks.shift();
          held--;
          if (held * 2 <= block && !stopped && granted < total) startRefill().catch(() => undefined);
          return { ok: true, reservedAt: first.reservedAt };
        }
        if (stopped) return { ok: false, reason: stopped };
        if (granted >= total) throw new Error('a scan lane took more units than it has prompts');
        await startRefill();
      }
    },
    /** Waits for a reservation under way, then gives back what is held and unused. */
    async close(): Promise<void> {
      await refilling?.catch(() => undefined);
      const unused = blocks.splice(0);
      held = 0;
      for (const b of unused) await release(ctx, ref, b.units * price, b.reservedAt);
    },
  };
}
