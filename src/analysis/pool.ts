import os from 'node:os';
import { Piscina } from 'piscina';
import type { AnswerFacts, AnswerInput } from './analyse.ts';
import type { BrandBook } from './brand-book.ts';
import type { Correction } from './corrections.ts';

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

/**
 * Facts of many answers with one book, in order, analysed off the calling
 * thread. `corrections[i]`: readers' corrections of answer i (plain data,
 * copied to the thread like the answers); none when absent.
 */
export async function analyseOffThread(book: BrandBook, answers: AnswerInput[], corrections?: readonly (readonly Correction[] | undefined)[]): Promise<AnswerFacts[]> {
  if (answers.length === 0) return [];
  const task: AnalysisTask = { book: book.input, answers, ...(corrections?.some((c) => c !== undefined && c.length > 0) && { corrections }) };
  return (await analysisPool().run(task)) as AnswerFacts[];
}

/** What a thread is handed (./thread.ts). */
export interface AnalysisTask {
  book: BrandBook['input'];
  answers: AnswerInput[];
  corrections?: readonly (readonly Correction[] | undefined)[];
}

/** Stops the threads (process shutdown, end of a test file); the next analysis starts a new pool. */
export async function closeAnalysisPool(): Promise<void> {
  const current = pool;
  pool = null;
  await current?.destroy();
}
