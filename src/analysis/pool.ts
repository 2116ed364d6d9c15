import os from 'node:os';
import { Piscina } from 'piscina';
import type { AnswerFacts, AnswerInput } from './analyse.ts';
import type { BrandBook } from './brand-book.ts';

/**
 * Analysis on worker threads (./thread.ts), so the thread that talks to the
 * assistants and the database is not the one reading answers: in a scan,
 * analysis was the largest piece of the main thread's work per answer after
 * HTTP itself. One pool per process, started on first use; threads leave
 * one core to the main thread.
 */

let pool: Piscina | null = null;

function analysisPool(): Piscina {
  pool ??= new Piscina({
    filename: new URL('./thread.ts', import.meta.url).href,
    minThreads: 1,
    maxThreads: Math.max(1, os.availableParallelism() - 1),
    idleTimeout: 60_000,
  });
  return pool;
}

/** Facts of many answers with one book, in order, analysed off the calling thread. */
export async function analyseOffThread(book: BrandBook, answers: AnswerInput[]): Promise<AnswerFacts[]> {
  if (answers.length === 0) return [];
  return (await analysisPool().run({ book: book.input, answers })) as AnswerFacts[];
}

/** Stops the threads (process shutdown, end of a test file); the next analysis starts a new pool. */
export async function closeAnalysisPool(): Promise<void> {
  const current = pool;
  pool = null;
  await current?.destroy();
}
