import {
  compileBrandBook,
  foldName,
  quoteAround,
  type AnswerFacts,
  type BrandBookInput,
  type NameReading,
  type Verdict,
} from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { NameReadingJson, SiteRow } from '../../db/schema.ts';
import { analyseAnswers, correctionsOf } from '../facts/index.ts';

/** Stored answers a preview re-reads at most: the newest. Bounds a dry run's time and memory whatever the site holds. */
export const PREVIEW_ANSWERS = 2000;
/** Answers read from the database and sent to an analysis thread at once (answers may be 200 KB each). */
const PREVIEW_BATCH = 200;
const EXAMPLES = 10;

const VERDICTS: readonly Verdict[] = ['cited', 'named', 'lost', 'missing', 'failed'];

/**
 * What a change of names (`dryRun: true`) would do, saving nothing: the
 * site's newest stored answers (up to PREVIEW_ANSWERS) re-read with the
 * would-be brand book and each answer's corrections, on the analysis
 * threads, against the verdicts their facts hold now. Counts per verdict
 * before and after, each change of verdict with how many answers make it,
 * and up to ten of those answers with the sentence whose reading changed.
 */
export async function previewNames(ctx: AppContext, site: SiteRow, input: BrandBookInput) {
  const book = compileBrandBook(input);
  const verdicts = Object.fromEntries(VERDICTS.map((v) => [v, { before: 0, after: 0 }])) as Record<
    Verdict,
    { before: number; after: number }
  >;
  const moved = new Map<string, { from: Verdict; to: Verdict; count: number }>();
  const examples: {
    answerId: number;
    promptId: number;
    provider: string;
    before: Verdict;
    after: Verdict;
    quote: string | null;
  }[] = [];
  const total = await ctx.db
    .selectFrom('answers')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('siteId', '=', site.id)
    .executeTakeFirstOrThrow();
  let read = 0;
  let below: number | null = null;
  while (read < PREVIEW_ANSWERS) {
    let q = ctx.db
      .selectFrom('answers as a')
      .leftJoin('answerFacts as f', (j) => j.onRef('f.answerId', '=', 'a.id').onRef('f.month', '=', 'a.month'))
      .select(['a.id', 'a.promptId', 'a.provider', 'a.text', 'a.citations', 'a.error', 'f.verdict', 'f.nameReadings'])
      .where('a.siteId', '=', site.id);
    if (below !== null) q = q.where('a.id', '<', below);
    const rows = await q
      .orderBy('a.id', 'desc')
      .limit(Math.min(PREVIEW_BATCH, PREVIEW_ANSWERS - read))
      .execute();
    if (rows.length === 0) break;
    const corrections = await correctionsOf(
      ctx.db,
      site.id,
      rows.map((r) => r.id),
    );
    const facts = await analyseAnswers(
      ctx,
      rows,
      book,
      rows.map((r) => corrections.get(r.id)),
    );
    rows.forEach((row, i) => {
      const after = (facts[i] as AnswerFacts).verdict;
      const before = row.verdict ?? 'failed';
      verdicts[before].before++;
      verdicts[after].after++;
      if (before === after) return;
      const key = `${before}>${after}`;
      const m = moved.get(key) ?? { from: before, to: after, count: 0 };
      m.count++;
      moved.set(key, m);
      if (examples.length < EXAMPLES) {
        examples.push({
          answerId: row.id,
          promptId: row.promptId,
          provider: row.provider,
          before,
          after,
          quote: changedQuote(row.text ?? '', row.nameReadings, (facts[i] as AnswerFacts).names),
        });
      }
    });
    read += rows.length;
    below = rows[rows.length - 1]?.id ?? null;
  }
  return {
    answersRead: read,
    answersTotal: Number(total.n),
    verdicts,
    moved: [...moved.values()].sort((a, b) => b.count - a.count || VERDICTS.indexOf(a.from) - VERDICTS.indexOf(b.from)),
    examples,
  };
}

/**
 * The sentence of the first name whose reading changed (counted before and
 * not after, or the reverse), where the new reading finds it. Facts stored
 * before readings were kept have none to compare: the first refused, else
 * counted, occurrence of the new reading. A name the new book no longer has
 * (an alias dropped) that counted before: where it counted.
 */
function changedQuote(text: string, before: NameReadingJson[] | null, after: readonly NameReading[]): string | null {
  const quote = (at: [number, number] | undefined) => (at === undefined ? null : quoteAround(text, at[0], at[1]));
  if (before === null)
    return quote(after.find((n) => n.refusedAt)?.refusedAt ?? after.find((n) => n.countedAt)?.countedAt);
  const was = new Map(before.map((n) => [foldName(n.name), n]));
  for (const n of after) {
    const old = was.get(foldName(n.name));
    was.delete(foldName(n.name));
    if ((old?.counted ?? 0) > 0 === n.counted > 0) continue;
    return quote(n.counted > 0 ? n.countedAt : n.refusedAt);
  }
  for (const old of was.values()) if (old.counted > 0) return quote(old.countedAt);
  return null;
}
