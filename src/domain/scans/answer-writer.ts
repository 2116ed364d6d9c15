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
/**
 * How long the next batch may wait for a slot before `add` waits too: about
 * as long as the four small batches the writer queued behind the three
 * being written before it filled one instead. So what is asked and not yet
 * stored stays bounded in time as well as in number when the database (or
 * the analysis thread, while it starts) is slow.
 */
const MAX_WAIT_MS = 4 * LINGER_MS;

/**
 * Stores a scan's answers in batches: one transaction for up to 100
 * answers with their facts and rollups, then their charges in one short
 * database call (one ledger entry per answer). The money rows every call
 * reserves against are never locked across an answer write. A batch is
 * written once it holds 100 answers or its first has waited 50 ms, three
 * at once; while all three are being written, answers keep filling the
 * next batch instead of queueing as small batches behind them (each batch
 * costs the worker and the database the same few statements and an
 * analysis task whatever its size, so a slow database gets fewer, fuller
 * ones). Batches lock their rollup rows in key order, so they wait for each
 * other rather than deadlock. When the next batch is full and all three
 * are being written (or it has waited MAX_WAIT_MS for a slot), `add`
 * waits, so asking never runs far ahead of storing. Answers still buffered
 * when a worker dies were never stored: their reservations are released
 * when the scan resumes and they are asked again; answers stored but not yet charged are charged then (the purse's
 * `squareUp`). Nothing is charged twice. The money is the purse's: the
 * writer tells it which calls were stored.
 */
export function createAnswerWriter(ctx: AppContext, purse: ScanPurse, book: BrandBook) {
  let buffer: PendingAnswer[] = [];
  let timer: NodeJS.Timeout | null = null;
  /** The buffer's first answer has waited LINGER_MS: written as soon as a slot is free, whatever the batch's size. */
  let due = false;
  /** When the buffer's first answer came. */
  let since = 0;
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

  /** Starts writing every batch that is ready (full, or due) while a slot is free; else waits for the linger. */
  function pump(): void {
    while (buffer.length > 0 && inFlight.size < WRITES_IN_FLIGHT && (due || buffer.length >= BATCH)) {
      const items = buffer.length <= BATCH ? buffer : buffer.slice(0, BATCH);
      buffer = buffer.length <= BATCH ? [] : buffer.slice(BATCH);
      since = Date.now();
      if (buffer.length === 0) {
        due = false;
        if (timer) clearTimeout(timer);
        timer = null;
      }
      const done: Promise<void> = write(items)
        .catch(async (err: Error) => {
          failure ??= err;
          await purse.releaseAll(
            items.map((item) => ({ priceMicros: item.reservedMicros, reservedAt: item.reservedAt })),
          );
        })
        .finally(() => {
          inFlight.delete(done);
          pump();
        });
      inFlight.add(done);
    }
    if (buffer.length > 0 && !due)
      timer ??= setTimeout(() => {
        timer = null;
        due = true;
        pump();
      }, LINGER_MS);
  }

  return {
    async add(item: PendingAnswer): Promise<void> {
      if (failure) throw failure;
      if (buffer.length === 0) since = Date.now();
      buffer.push(item);
      pump();
      // Backpressure: never hold more than a bounded number of answers in memory, nor for long.
      while (
        inFlight.size >= WRITES_IN_FLIGHT &&
        buffer.length > 0 &&
        (buffer.length >= BATCH || Date.now() - since >= MAX_WAIT_MS)
      )
        await Promise.race(inFlight);
    },
    /** Writes everything buffered; throws the first write failure. */
    async close(): Promise<void> {
      for (;;) {
        due = true;
        pump();
        if (inFlight.size === 0) break;
        await Promise.race(inFlight);
      }
      due = false;
      if (failure) throw failure;
    },
  };
}
