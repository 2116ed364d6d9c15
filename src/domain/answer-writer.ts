import type { BrandBook } from '../analysis/index.ts';
import type { AppContext } from '../context.ts';
import { storeAnswers, type NewAnswer } from './answers.ts';
import { release, settle, type ScanMoneyRef } from './scan-money.ts';

export interface PendingAnswer {
  answer: NewAnswer;
  /** What was reserved for the call; charged if the answer succeeded and is stored, released otherwise. */
  reservedMicros: number;
  reservedAt: Date;
  description: string;
}

const BATCH = 50;
const LINGER_MS = 20;
const MAX_BUFFERED = 1000;

/**
 * Stores a scan's answers in small batches: one transaction (and one update
 * of each money row) for up to 50 answers instead of one per answer, which
 * is what lets a worker store 1,000+ answers a second. Charges stay one
 * ledger entry per answer, in the transaction that stores it. Answers still
 * buffered when a worker dies were never stored: their reservations are
 * released when the scan resumes, and they are asked again, never charged twice.
 */
export function createAnswerWriter(ctx: AppContext, ref: ScanMoneyRef, book: BrandBook) {
  let buffer: PendingAnswer[] = [];
  let timer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> = Promise.resolve();
  let failure: Error | null = null;

  async function write(items: PendingAnswer[]): Promise<void> {
    const stored = await storeAnswers(
      ctx,
      items.map((i) => i.answer),
      book,
      (trx, rows) =>
        settle(
          trx,
          ref,
          rows
            .filter((r) => r.input.error === null)
            .map((r) => {
              const item = items.find((i) => i.answer === r.input) as PendingAnswer;
              return { answerId: r.answerId, priceMicros: item.reservedMicros, reservedAt: item.reservedAt, description: item.description };
            }),
        ),
    );
    // Failed calls and answers that were already stored give their reservation back.
    const unpaid = items.filter((item, i) => item.answer.error !== null || stored[i] === null);
    for (const item of unpaid) await release(ctx, ref, item.reservedMicros, item.reservedAt);
  }

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = null;
    const items = buffer;
    buffer = [];
    if (items.length === 0) return flushing;
    flushing = flushing.then(() =>
      write(items).catch(async (err: Error) => {
        failure ??= err;
        for (const item of items) await release(ctx, ref, item.reservedMicros, item.reservedAt).catch(() => undefined);
      }),
    );
    return flushing;
  }

  return {
    async add(item: PendingAnswer): Promise<void> {
      if (failure) throw failure;
      buffer.push(item);
      if (buffer.length >= BATCH) void flush();
      else timer ??= setTimeout(() => void flush(), LINGER_MS);
      // Backpressure: never hold more than a bounded number of answers in memory.
      if (buffer.length >= MAX_BUFFERED) await flush();
    },
    /** Writes everything buffered; throws the first write failure. */
    async close(): Promise<void> {
      await flush();
      await flushing;
      if (failure) throw failure;
    },
  };
}
