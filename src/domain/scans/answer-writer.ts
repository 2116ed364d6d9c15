import pLimit from 'p-limit';
import type { BrandBook } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import { storeAnswers, type NewAnswer, analyseAnswers } from '../facts/index.ts';
import type { ScanPurse } from './purse.ts';

export interface PendingAnswer {
  answer: NewAnswer;
  /** What was reserved for the call; charged if the answer succeeded and is stored, released otherwise. */
  reservedMicros: number;
  reservedAt: Date;
  description: string;
}

const BATCH = 100;
const LINGER_MS = 50;
/** Batches written at once: one transaction is being built while others wait on the database. */
const WRITES_IN_FLIGHT = 3;
/** Batches waiting to be written before `add` makes callers wait (bounded memory). */
const MAX_QUEUED = 4;

/**
 * Stores a scan's answers in small batches: one transaction for up to 100
 * answers with their facts and rollups, then their charges in one short
 * database call (one ledger entry per answer). The money rows every call
 * reserves against are never locked across an answer write. Three batches are
 * written at once (their rollup rows are locked in key order, so they wait
 * for each other rather than deadlock); when storing falls behind, `add`
 * waits, so asking never runs far ahead of storing. Answers still
 * buffered when a worker dies were never stored: their reservations are
 * released when the scan resumes and they are asked again; answers stored but
 * not yet charged are charged then (the purse's `squareUp`). Nothing is charged twice.
 * The money is the purse's: the writer tells it which calls were stored.
 */
export function createAnswerWriter(ctx: AppContext, purse: ScanPurse, book: BrandBook) {
  let buffer: PendingAnswer[] = [];
  let timer: NodeJS.Timeout | null = null;
  const writes = pLimit(WRITES_IN_FLIGHT);
  const inFlight = new Set<Promise<void>>();
  let failure: Error | null = null;

  async function write(items: PendingAnswer[]): Promise<void> {
    // Analysed on an analysis thread before the transaction opens: analysing a batch on this thread
    // held the event loop long enough to delay every call in flight.
    const facts = await analyseAnswers(
      ctx,
      items.map((i) => i.answer),
      book,
    );
    const stored = await storeAnswers(
      ctx,
      items.map((i, n) => ({ ...i.answer, facts: facts[n] })),
      book,
    );
    // Charged when answered and stored; failed calls and answers that were already stored give their reservation back.
    await purse.account(
      items.map((item, i) => ({
        answerId: stored[i]?.answerId ?? null,
        answered: item.answer.error === null,
        priceMicros: item.reservedMicros,
        reservedAt: item.reservedAt,
        description: item.description,
      })),
    );
  }

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    const items = buffer;
    buffer = [];
    if (items.length === 0) return;
    const done = writes(() =>
      write(items).catch(async (err: Error) => {
        failure ??= err;
        await purse.releaseAll(
          items.map((item) => ({ priceMicros: item.reservedMicros, reservedAt: item.reservedAt })),
        );
      }),
    );
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  }

  return {
    async add(item: PendingAnswer): Promise<void> {
      if (failure) throw failure;
      buffer.push(item);
      if (buffer.length >= BATCH) flush();
      else timer ??= setTimeout(flush, LINGER_MS);
      // Backpressure: never hold more than a bounded number of answers in memory.
      while (writes.pendingCount >= MAX_QUEUED) await Promise.race(inFlight);
    },
    /** Writes everything buffered; throws the first write failure. */
    async close(): Promise<void> {
      flush();
      while (inFlight.size > 0) await Promise.all(inFlight);
      if (failure) throw failure;
    },
  };
}
