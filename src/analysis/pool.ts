import os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { ANALYSIS_MAX_CHARS, unreadFacts, type AnswerFacts, type AnswerInput } from './analyse.ts';
import type { BrandBook } from './brand-book.ts';
import type { Correction } from './corrections.ts';
import type { AnalysisTask } from './thread.ts';

/**
 * Analysis on worker threads (./thread.ts), so the thread that talks to the
 * assistants and the database is not the one reading answers: in a scan,
 * analysis was the largest piece of the main thread's work per answer after
 * HTTP itself. One pool per process, the context's (`analysisPool` in
 * src/context.ts: made on first use, closed with the context); threads
 * leave one core to the main thread.
 *
 * No answer can hold a scan or a reanalysis: each task (a batch of answers)
 * has a deadline, counted from when its thread starts it, and a thread past
 * it is stopped (piscina terminates it and starts another). A batch stopped
 * so is retried answer by answer, each with its own deadline, and an answer
 * stopped again gets facts that say so (unreadFacts) instead of an error. A
 * thread that runs out of its heap (THREAD_HEAP_MB) is treated the same way,
 * so a runaway task ends its thread, never the process.
 */

export interface OffThreadOptions {
  /** How long one task may run on its thread, in milliseconds (config ANALYSIS_TIMEOUT_MS). */
  timeoutMs: number;
}

/**
 * Old-generation heap of one analysis thread. A batch of 1,000 answers at
 * the analysis cap is 200 MB of text at most; a thread holds about 47 MB
 * once its modules are loaded (the lexicons, the names reader's weights).
 * A thread that runs out before it is ready makes piscina start no other,
 * so this must stay well above that.
 */
const THREAD_HEAP_MB = 512;

export interface AnalysisPool {
  /** Facts of many answers with one book, in order, analysed off the calling thread. */
  analyse(
    book: BrandBook,
    answers: AnswerInput[],
    options: OffThreadOptions,
    corrections?: Corrections,
  ): Promise<AnswerFacts[]>;
  close(): Promise<void>;
}

/**
 * A pool of analysis threads. The process has one (its context's); the
 * options are for tests: `filename` a thread module that hangs or hogs
 * memory on cue, `heapMb` a smaller heap to run out of.
 */
export function createAnalysisPool(
  options: { filename?: URL; maxThreads?: number; heapMb?: number } = {},
): AnalysisPool {
  let pool: Piscina | null = null;
  // Started by the first task, and again after close: a pool that analyses nothing keeps no thread.
  const threads = (): Piscina => {
    if (pool) return pool;
    pool = new Piscina({
      filename: (options.filename ?? new URL('./thread.ts', import.meta.url)).href,
      minThreads: 1,
      maxThreads: options.maxThreads ?? Math.max(1, os.availableParallelism() - 1),
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.heapMb ?? THREAD_HEAP_MB },
    });
    // A thread that dies between tasks fails no task; piscina replaces it. Unheard, the event would end the process.
    pool.on('error', () => undefined);
    return pool;
  };

  async function run(
    book: BrandBook,
    answers: AnswerInput[],
    timeoutMs: number,
    corrections: Corrections | undefined,
  ): Promise<AnswerFacts[] | OverLimit> {
    const { port1, port2 } = new MessageChannel();
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    port1.once('message', () => {
      if (!settled) timer = setTimeout(() => stop.abort(), timeoutMs);
    });
    const task: AnalysisTask = {
      book: book.input,
      answers: answers.map(forThread),
      started: port2,
      ...(corrections?.some((c) => c !== undefined && c.length > 0) && { corrections }),
    };
    try {
      return (await threads().run(task, { signal: stop.signal, transferList: [port2] })) as AnswerFacts[];
    } catch (err) {
      if (stop.signal.aborted) return OVER_LIMIT;
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') return OVER_LIMIT;
      throw err;
    } finally {
      settled = true;
      clearTimeout(timer);
      port1.close();
    }
  }

  return {
    async analyse(book, answers, { timeoutMs }, corrections) {
      if (answers.length === 0) return [];
      const facts = await run(book, answers, timeoutMs, corrections);
      if (facts !== OVER_LIMIT) return facts;
      if (answers.length === 1) return answers.map((a) => unreadFacts(a, book));
      // One answer stopped the batch (or the batch was too much): each answer again, alone.
      return Promise.all(
        answers.map(async (answer, i) => {
          const alone = await run(book, [answer], timeoutMs, corrections && [corrections[i]]);
          return alone === OVER_LIMIT ? unreadFacts(answer, book) : (alone[0] ?? unreadFacts(answer, book));
        }),
      );
    },
    async close() {
      const current = pool;
      pool = null;
      await current?.destroy();
    },
  };
}

/** `corrections[i]`: readers' corrections of answer i, copied to the thread like the answers. */
type Corrections = readonly (readonly Correction[] | undefined)[];

/** A task stopped at its deadline or out of memory. */
const OVER_LIMIT = Symbol('over limit');
type OverLimit = typeof OVER_LIMIT;

/**
 * The answer as sent to a thread: what analysis reads of it, no more (the
 * clone is paid on both threads). Citations as their url, title and domain
 * (a scan's carry their offsets and cited text too). Analysis reads no further than
 * ANALYSIS_MAX_CHARS (readEnd looks at one unit more to know the text goes
 * on), so only that much is copied, whatever the length of the text. A text
 * blank that far is sent whole, so it is still told from an empty answer.
 */
function forThread(answer: AnswerInput): AnswerInput {
  const citations = answer.citations.map(({ url, title, domain }) => ({ url, title, domain }));
  const text = answer.text;
  if (text === null || text.length <= ANALYSIS_MAX_CHARS + 1) return { text, citations, failed: answer.failed };
  const head = text.slice(0, ANALYSIS_MAX_CHARS + 1);
  return { text: head.trim() === '' ? text : head, citations, failed: answer.failed };
}
