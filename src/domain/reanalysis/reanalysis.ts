import { sql, type InferResult } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { ReanalysisStatus, SiteRow } from '../../db/schema.ts';
import { NotFoundError } from '../../errors.ts';
import { BUSY, withSiteLock, type Busy } from '../common/index.ts';
import {
  loadBrandBook,
  analyseAnswers,
  factsKey,
  warnUnread,
  writeFacts,
  rebuildRollups,
  correctionsOf,
} from '../facts/index.ts';
import type { AnswerFacts } from '../../analysis/index.ts';

const BATCH = 1000;
const WRITES_IN_FLIGHT = 2;
/** How long a request that triggered reanalysis waits for it before answering with the job to poll. */
export const REANALYSIS_WAIT_MS = 3000;

export interface ReanalysisView {
  id: number;
  state: ReanalysisStatus;
  reason: string;
  answers: number;
  verdictsChanged: number;
  error: string | null;
  requestedAt: Date;
  finishedAt: Date | null;
  poll: string;
}

async function view(ctx: AppContext, siteId: number, id: number): Promise<ReanalysisView> {
  const row = await ctx.db
    .selectFrom('reanalyses')
    .selectAll()
    .where('id', '=', id)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No reanalysis with id ${id}`);
  return {
    id: row.id,
    state: row.status,
    reason: row.reason,
    answers: row.answers,
    verdictsChanged: row.verdictsChanged,
    error: row.error,
    requestedAt: row.requestedAt,
    finishedAt: row.finishedAt,
    poll: `/projects/${siteId}/reanalyses/${row.id}`,
  };
}

export async function getReanalysis(ctx: AppContext, site: SiteRow, reanalysisId: number): Promise<ReanalysisView> {
  return view(ctx, site.id, reanalysisId);
}

/**
 * Queues a re-read of every stored answer of a site and waits a few seconds
 * for it: the caller gets the finished summary, or the state and where to poll.
 * Requests while one is still queued join it (one queued per site, a unique
 * index), so a burst of changes costs one run.
 */
export async function requestReanalysis(
  ctx: AppContext,
  site: SiteRow,
  reason: string,
  waitMs = REANALYSIS_WAIT_MS,
): Promise<ReanalysisView> {
  const created = await ctx.db
    .insertInto('reanalyses')
    .values({ siteId: site.id, reason })
    .onConflict((oc) =>
      oc
        .column('siteId')
        .where(sql<boolean>`status = 'queued'`)
        .doNothing(),
    )
    .returning(['id'])
    .executeTakeFirst();
  const row =
    created ??
    (await ctx.db
      .selectFrom('reanalyses')
      .select('id')
      .where('siteId', '=', site.id)
      .where('status', '=', 'queued')
      .orderBy('id', 'desc')
      .executeTakeFirst());
  // The queued one started running in between: ask again, and a new one is queued.
  if (!row) return requestReanalysis(ctx, site, reason, waitMs);
  await ctx.jobs.enqueue('reanalysis', { siteId: site.id, reanalysisId: row.id }, { jobId: `reanalysis-${row.id}` });
  const deadline = Date.now() + waitMs;
  for (;;) {
    const current = await view(ctx, site.id, row.id);
    if (current.state === 'done' || current.state === 'failed' || Date.now() >= deadline) return current;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The `reanalysis` job: under the site's lock, re-reads the site's answers in
 * batches (memory flat in the number of answers), rewrites their facts with
 * the current names and each answer's corrections, then rebuilds the
 * rollups that depend on facts in one transaction.
 */
export async function runReanalysis(
  ctx: AppContext,
  siteId: number,
  reanalysisId: number,
  onProgress: (answersRead: number) => void = () => undefined,
): Promise<{ answers: number; verdictsChanged: number } | Busy> {
  return withSiteLock(ctx, siteId, async (lost) => {
    const db = ctx.db;
    await db
      .updateTable('reanalyses')
      .set({ status: 'running', startedAt: ctx.clock.now(), error: null })
      .where('id', '=', reanalysisId)
      .execute();
    try {
      const book = await loadBrandBook(db, siteId);
      const key = factsKey(book);
      // Readers' corrections go with every re-read, so reanalysis never undoes one; none is added meanwhile (they take this lock).
      const corrections = await correctionsOf(db, siteId);
      let answers = 0;
      let verdictsChanged = 0;
      await db.transaction().execute(async (reader) => {
        const query = reader
          .selectFrom('answers as a')
          .leftJoin('answerFacts as f', (j) => j.onRef('f.answerId', '=', 'a.id').onRef('f.month', '=', 'a.month'))
          .select([
            'a.id',
            'a.month',
            'a.siteId',
            'a.promptId',
            'a.provider',
            'a.day',
            'a.text',
            'a.citations',
            'a.error',
            'f.verdict as oldVerdict',
            'f.brandKey as oldKey',
          ])
          .where('a.siteId', '=', siteId)
          .orderBy('a.id');
        // One cursor over the site's answers, read in batches: one ordered index scan in all. Keyset
        // batches were re-planned each time and, with statistics that had not seen a bulk of new
        // answers, planned as a scan of every remaining row per batch.
        await sql`DECLARE reanalysis_answers NO SCROLL CURSOR FOR ${query}`.execute(reader);
        const readBatch = async () =>
          (
            await sql<InferResult<typeof query>[number]>`FETCH ${sql.lit(BATCH)} FROM reanalysis_answers`.execute(
              reader,
            )
          ).rows;
        let batch = await readBatch();
        // Postgres reads the next batch and writes earlier ones while an analysis thread reads this one. Writes are
        // most of the time, so two run at once (two connections, both cores); with one read ahead and two
        // writes behind, memory stays flat whatever the number of answers.
        const writing: Promise<void>[] = [];
        while (batch.length > 0) {
          if (lost.aborted) throw lost.reason as Error;
          const next = readBatch();
          next.catch(() => undefined);
          // Facts are a pure function of answer, names and rules: current ones need no rewrite.
          const stale = batch.filter((a) => a.oldKey !== key);
          const facts = await analyseAnswers(
            ctx,
            stale,
            book,
            stale.map((a) => corrections.get(a.id)),
          );
          const items = stale.map((answer, i) => ({ answer, facts: facts[i] as AnswerFacts }));
          warnUnread(
            ctx,
            items.map((i) => ({ answerId: i.answer.id, facts: i.facts })),
            { siteId, reanalysisId },
          );
          verdictsChanged += items.filter((i) => i.answer.oldVerdict !== i.facts.verdict).length;
          if (writing.length >= WRITES_IN_FLIGHT) await writing.shift();
          const write = writeFacts(db, items, book);
          write.catch(() => undefined);
          writing.push(write);
          answers += batch.length;
          onProgress(answers);
          batch = await next;
        }
        await Promise.all(writing);
      });
      await db.transaction().execute((trx) => rebuildRollups(trx, siteId, 'facts'));
      await db
        .updateTable('reanalyses')
        .set({ status: 'done', answers, verdictsChanged, finishedAt: ctx.clock.now() })
        .where('id', '=', reanalysisId)
        .execute();
      return { answers, verdictsChanged };
    } catch (err) {
      await db
        .updateTable('reanalyses')
        .set({ status: 'failed', error: (err as Error).message, finishedAt: ctx.clock.now() })
        .where('id', '=', reanalysisId)
        .execute();
      throw err;
    }
  });
}

/** How long a site whose lock another job holds is waited for before trying again. */
const SITE_BUSY_WAIT_MS = 2_000;

export interface ReanalysisProgress {
  sites: number;
  sitesDone: number;
  answers: number;
  answersDone: number;
}

/**
 * Operators, after a change of analysis rules: re-reads every stored answer
 * of every site (or the given ones) in this process, one site at a time, each
 * as a recorded reanalysis. A site whose lock another job holds is waited for.
 */
export async function reanalysisOfSites(
  ctx: AppContext,
  siteIds: number[] | 'all',
  onProgress: (p: ReanalysisProgress) => void = () => undefined,
): Promise<{ sites: number; answers: number; verdictsChanged: number }> {
  let query = ctx.db
    .selectFrom('sites as s')
    .select([
      's.id',
      (eb) =>
        eb
          .selectFrom('answers as a')
          .select((e) => e.fn.countAll<number>().as('n'))
          .whereRef('a.siteId', '=', 's.id')
          .as('answers'),
    ])
    .orderBy('s.id');
  if (siteIds !== 'all') query = query.where('s.id', 'in', siteIds.length ? siteIds : [0]);
  const sites = await query.execute();
  if (siteIds !== 'all' && sites.length !== siteIds.length)
    throw new NotFoundError(`No project with id ${siteIds.filter((id) => !sites.some((s) => s.id === id)).join(', ')}`);
  const progress: ReanalysisProgress = {
    sites: sites.length,
    sitesDone: 0,
    answers: sites.reduce((n, s) => n + Number(s.answers ?? 0), 0),
    answersDone: 0,
  };
  let verdictsChanged = 0;
  onProgress({ ...progress });
  for (const site of sites) {
    // A request already waiting to run is this one: whichever run comes second finds the facts current.
    const row =
      (await ctx.db
        .insertInto('reanalyses')
        .values({ siteId: site.id, reason: 'operator: new analysis rules' })
        .onConflict((oc) =>
          oc
            .column('siteId')
            .where(sql<boolean>`status = 'queued'`)
            .doNothing(),
        )
        .returning('id')
        .executeTakeFirst()) ??
      (await ctx.db
        .selectFrom('reanalyses')
        .select('id')
        .where('siteId', '=', site.id)
        .where('status', '=', 'queued')
        .executeTakeFirstOrThrow());
    const before = progress.answersDone;
    for (;;) {
      const result = await runReanalysis(ctx, site.id, row.id, (read) =>
        onProgress({ ...progress, answersDone: before + read }),
      );
      if (result !== BUSY) {
        verdictsChanged += result.verdictsChanged;
        progress.answersDone = before + result.answers;
        break;
      }
      await new Promise((r) => setTimeout(r, SITE_BUSY_WAIT_MS));
    }
    progress.sitesDone++;
    onProgress({ ...progress });
  }
  return { sites: sites.length, answers: progress.answersDone, verdictsChanged };
}
