import type { AppContext } from '../../context.ts';
import type { Micros } from '../../money.ts';
import { release, reserveUnits, type LimitReason, type ScanMoneyRef } from './money.ts';

export type Take = { ok: true; reservedAt: Date } | { ok: false; reason: LimitReason };

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
 * by the resumed scan (releaseScanReservations). Once a reservation grants
 * nothing, the limit that refused it is the lane's stop reason.
 */
export function createPurse(ctx: AppContext, ref: ScanMoneyRef, price: Micros, total: number, block: number) {
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
