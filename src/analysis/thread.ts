import { analyse, type AnswerInput, type AnswerFacts } from './analyse.ts';
import { compileBrandBook, type BrandBookInput } from './brand-book.ts';

/**
 * An analysis thread's task (see ./pool.ts): a brand book's input and a
 * batch of answers in, their facts out. The book is compiled once per
 * thread and content (compileBrandBook caches).
 */
export default function analyseBatch(task: { book: BrandBookInput; answers: AnswerInput[] }): AnswerFacts[] {
  const book = compileBrandBook(task.book);
  return task.answers.map((a) => analyse(a, book));
}
