import type { AnswerFacts } from '../../analysis/index.ts';
import { foldName } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { MentionFeedbackRow, SiteRow } from '../../db/schema.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { BUSY, withSiteLock } from '../common/index.ts';
import {
  analyseAnswers,
  writeFacts,
  answersWithFacts,
  serializeAnswer,
  replaceInRollups,
  loadBrandBook,
  correctionsOf,
} from '../facts/index.ts';
import { namesInUse } from './names.ts';
import type { MentionFeedbackInput, MentionFeedbackListQuery } from './schemas.ts';

/**
 * How long a correction waits for the site's lock (a scan or reanalysis
 * writing facts) before answering 409: long enough for a batch or a
 * reanalysis of a small site, short enough for a request.
 */
export const FEEDBACK_LOCK_WAIT_MS = 3000;
const LOCK_POLL_MS = 200;

export function serializeFeedback(row: MentionFeedbackRow) {
  return {
    id: row.id,
    answerId: row.answerId,
    name: row.name,
    mentioned: row.mentioned,
    readingAgreed: row.readingAgreed,
    userId: row.userId,
    keyId: row.keyId,
    createdAt: row.createdAt,
  };
}

/**
 * A reader's correction (POST /projects/:id/mention-feedback): whether
 * `name`, one of the site's names in use, is meant in one stored answer.
 * Saved (replacing an earlier one for the same answer and name) and the
 * answer re-read at once in one transaction under the site's lock, with
 * every correction of that answer: its facts are rewritten and the rollups
 * kept exact (replaceInRollups), so reports change with it. The answer is
 * re-read with the site's current names, like any re-read; later
 * reanalyses pass the correction again and never undo it.
 *
 * `readingAgreed` is recorded from the reading without this correction
 * (the other corrections of the answer applied): it had counted the name
 * and the reader says meant, or refused it and the reader says not. A name
 * that does not occur in the answer as a word has nothing to correct (422).
 */
export async function addMentionFeedback(
  ctx: AppContext,
  site: SiteRow,
  actor: { userId: number; keyId: number | null },
  input: MentionFeedbackInput,
) {
  const answer = await ctx.db
    .selectFrom('answers')
    .select(['id', 'month', 'siteId', 'promptId', 'provider', 'day', 'text', 'citations', 'error'])
    .where('id', '=', input.answerId)
    .where('siteId', '=', site.id)
    .executeTakeFirst();
  if (!answer) throw new NotFoundError(`No answer with id ${input.answerId} in this project`);
  const key = foldName(input.name);
  const inUse = await namesInUse(ctx.db, site);
  if (!inUse.some((n) => foldName(n.name) === key)) {
    throw new ValidationError({
      name: "not a name this project tracks: give the project's name, a brand term, a competitor's name or an alias",
    });
  }

  const row = await withSiteLockWaiting(ctx, site.id, () =>
    ctx.db.transaction().execute(async (trx) => {
      const book = await loadBrandBook(trx, site.id);
      const others = ((await correctionsOf(trx, site.id, [answer.id])).get(answer.id) ?? []).filter(
        (c) => foldName(c.name) !== key,
      );
      const [reading, corrected] = (await analyseAnswers(ctx, [answer, answer], book, [
        others,
        [...others, { name: input.name, mentioned: input.mentioned }],
      ])) as [AnswerFacts, AnswerFacts];
      const before = reading.names.find((n) => foldName(n.name) === key);
      if (!before) throw new ValidationError({ name: `does not occur as a word in answer ${answer.id}` });
      const fields = {
        name: input.name,
        mentioned: input.mentioned,
        readingAgreed: before.counted > 0 === input.mentioned,
        userId: actor.userId,
        keyId: actor.keyId,
        createdAt: ctx.clock.now(),
      };
      const saved = await trx
        .insertInto('mentionFeedback')
        .values({ siteId: site.id, answerId: answer.id, answerMonth: answer.month, nameKey: key, ...fields })
        .onConflict((oc) => oc.columns(['answerId', 'nameKey']).doUpdateSet(fields))
        .returningAll()
        .executeTakeFirstOrThrow();
      await replaceInRollups(
        trx,
        [{ id: answer.id, month: answer.month, promptId: answer.promptId, provider: answer.provider }],
        () => writeFacts(trx, [{ answer, facts: corrected }], book),
      );
      return saved;
    }),
  );
  const view = await answersWithFacts(ctx)
    .where('a.id', '=', answer.id)
    .where('a.siteId', '=', site.id)
    .executeTakeFirstOrThrow();
  return { feedback: serializeFeedback(row), answer: serializeAnswer(view) };
}

/**
 * Runs `fn` under the site's facts lock, waiting up to
 * FEEDBACK_LOCK_WAIT_MS while a scan or reanalysis holds it; then 409.
 * Nothing is saved before the lock is held, so a refused correction
 * leaves no trace to retry around.
 */
async function withSiteLockWaiting<T>(ctx: AppContext, siteId: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + FEEDBACK_LOCK_WAIT_MS;
  for (;;) {
    const done = await withSiteLock(ctx, siteId, fn);
    if (done !== BUSY) return done;
    if (Date.now() >= deadline) {
      throw new ConflictError(
        `Project ${siteId} is busy: a scan or reanalysis is writing its answers' facts. Nothing was saved; try again in a moment, or when it is done.`,
      );
    }
    await new Promise((r) => setTimeout(r, LOCK_POLL_MS));
  }
}

/** GET /projects/:id/mention-feedback: the site's corrections, newest first; `name` narrows to one name (compared folded). */
export async function listMentionFeedback(ctx: AppContext, site: SiteRow, query: MentionFeedbackListQuery) {
  let q = ctx.db.selectFrom('mentionFeedback').where('siteId', '=', site.id);
  if (query.name !== undefined) q = q.where('nameKey', '=', foldName(query.name));
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q
      .selectAll()
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return { feedback: rows.map(serializeFeedback), total: Number(count.n), page: query.page, perPage: query.perPage };
}
