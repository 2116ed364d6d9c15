import type { MessagePort } from 'node:worker_threads';
import { analyse, type AnswerInput, type AnswerFacts } from './analyse.ts';
import { compileBrandBook, type BrandBookInput } from './brand-book.ts';
import type { Correction } from './corrections.ts';
import { loadLexicon } from './lexicon.ts';

// Read when the thread starts, before any task: a task's deadline runs from when it starts (pool.ts), and the
// word list takes a tenth of a second to load, which a short deadline on a new thread would otherwise pay.
loadLexicon();

/** What an analysis thread is given (see ./pool.ts). */
export interface AnalysisTask {
  book: BrandBookInput;
  answers: AnswerInput[];
  /** `corrections[i]`: readers' corrections of answer i (plain data); none when absent. */
  corrections?: readonly (readonly Correction[] | undefined)[];
  /** Told when the thread starts the task: the pool's deadline runs from then, not from when it was queued. */
  started?: MessagePort;
}

/**
 * An analysis thread's task: a brand book's input, a batch of answers and their corrections in,
 * their facts out. The book is compiled once per thread and content
 * (compileBrandBook caches).
 */
export default function analyseBatch(task: AnalysisTask): AnswerFacts[] {
  task.started?.postMessage(null);
  const book = compileBrandBook(task.book);
  return task.answers.map((a, i) => analyse(a, book, task.corrections?.[i]));
}
