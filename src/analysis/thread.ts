import { analyse, type AnswerFacts } from './analyse.ts';
import { compileBrandBook } from './brand-book.ts';
import type { AnalysisTask } from './pool.ts';

/**
 * An analysis thread's task (see ./pool.ts): a brand book's input, a batch
 * of answers and their corrections in, their facts out. The book is
 * compiled once per thread and content (compileBrandBook caches).
 */
export default function analyseBatch(task: AnalysisTask): AnswerFacts[] {
  const book = compileBrandBook(task.book);
  return task.answers.map((a, i) => analyse(a, book, task.corrections?.[i]));
}
