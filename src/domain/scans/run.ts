import pLimit from 'p-limit';
import { AssistantError, storedRaw, type AskResult, type BatchHandle } from '../../assistants/index.ts';
import { findModel, providerEntry, type ModelEntry, type ProviderKey } from '../../assistants/catalog.ts';
import type { BrandBook } from '../../analysis/index.ts';
import type { AppContext } from '../../context.ts';
import type { BatchItemJson, ScanRow, SiteRow, StopReason } from '../../db/schema.ts';
import { Later, withSiteLock, type Busy } from '../common/index.ts';
import { createAnswerWriter, type PendingAnswer } from './answer-writer.ts';
import { concurrencyFor, upstreamOf, chargedPrice } from '../providers/index.ts';
import type { UpstreamKey } from '../../assistants/index.ts';
import { joinShare, type SiteShare } from './fair-share.ts';
import { loadBrandBook } from '../facts/index.ts';

import { scanPurse, type LanePurse, type ScanMoneyRef, type ScanPurse } from './purse.ts';
import { closeScan } from '../webhooks/index.ts';

/**
 * The scan job. Work = the scan's prompts x providers x samples, minus
 * answers already stored and requests already in a submitted batch, so a
 * retried or resumed scan never asks or charges twice (an answer is unique
 * per scan, prompt, provider and sample). Synchronous models are asked in the
 * site's turn at its provider account (./fair-share.ts; the account's limits
 * hold across processes in the gate), taking each price from the lane's reserved block
 * (./purse.ts, the one owner of the scan's money) just before its call; batch and
 * queue models are submitted, then the job re-delays itself to poll them.
 */

const FINAL = ['done', 'failed', 'cancelled'];
const CANCEL_CHECK_MS = 250;

interface ProviderWork {
  provider: ProviderKey;
  model: ModelEntry;
  priceMicros: number;
  mode: 'ask' | 'batch' | 'queue';
  /** Each charge's ledger description. */
  description: string;
}

interface PromptToAsk {
  id: number;
  text: string;
  context: string | null;
}

/** One call of a lane: a prompt and which of its samples (1 to the scan's samples). */
interface Ask {
  prompt: PromptToAsk;
  sample: number;
}

/** A batch request's id: `p<prompt>` for the first sample (as before samples), `p<prompt>s<n>` for the others. */
const batchItemId = (ask: Ask) => (ask.sample === 1 ? `p${ask.prompt.id}` : `p${ask.prompt.id}s${ask.sample}`);

interface RunState {
  ctx: AppContext;
  purse: ScanPurse;
  writer: ReturnType<typeof createAnswerWriter>;
  scan: ScanRow;
  site: SiteRow;
  ref: ScanMoneyRef;
  book: BrandBook;
  stop: Extract<StopReason, 'budget' | 'cap' | 'balance'> | null;
  cancelled: boolean;
  /** Aborted when another worker took the site's lock (this one stalled): ask nothing more. */
  lockLost: AbortSignal;
}

const halted = (st: RunState) => st.stop !== null || st.cancelled || st.lockLost.aborted;

/**
 * What the scan asks of each provider and at what price: free when the scan
 * was planned free (its estimate said 0), and also when this worker would
 * answer from the simulator in `auto` mode, so no process charges for an
 * answer it simulated because a credential is missing.
 */
function providerWork(ctx: AppContext, scan: ScanRow): ProviderWork[] {
  const providers = (scan.plan.providers ?? []) as ProviderKey[];
  return providers.map((provider) => {
    const model =
      findModel(provider, scan.plan.models?.[provider] ?? providerEntry(provider).defaultModel) ??
      findModel(provider, providerEntry(provider).defaultModel);
    if (!model) throw new Error(`catalog has no model for ${provider}`);
    const batch = scan.batch && model.batchPriceMicros !== null;
    const mode = model.kind === 'app-queue' ? 'queue' : batch ? 'batch' : 'ask';
    const free = (scan.plan.free ?? []).includes(provider);
    return {
      provider,
      model,
      priceMicros: free ? 0 : chargedPrice(ctx.config, provider, model, batch),
      mode,
      description: `${provider} ${model.id} answer`,
    };
  });
}

function pending(
  st: RunState,
  work: ProviderWork,
  ask: Ask,
  result: { answer: AskResult } | { error: string },
  priceMicros: number,
  reservedAt: Date,
): PendingAnswer {
  const ok = 'answer' in result;
  const { prompt, sample } = ask;
  return {
    answer: {
      scanId: st.ref.scanId,
      siteId: st.ref.siteId,
      promptId: prompt.id,
      sample,
      provider: work.provider,
      model: ok ? result.answer.model || work.model.id : work.model.id,
      askedAt: st.ctx.clock.now(),
      text: ok ? result.answer.text : null,
      citations: ok
        ? result.answer.citations.map((c) => ({
            url: c.url,
            title: c.title || null,
            domain: c.domain,
            startIndex: c.startIndex,
            endIndex: c.endIndex,
            citedText: c.citedText,
          }))
        : [],
      searches: ok ? result.answer.searches : [],
      usage: ok ? result.answer.usage : null,
      // As stored, now: the parsed response's objects are garbage before the answer waits for its batch.
      raw: ok ? storedRaw(result.answer.raw) : null,
      // A failed call is stored so it is not asked again, and is not charged.
      costMicros: ok ? priceMicros : 0,
      error: ok ? null : result.error,
      truncated: ok ? result.answer.truncated : false,
      context: prompt.context,
      simulated: ok ? result.answer.target === 'simulator' : (st.scan.plan.simulated ?? []).includes(work.provider),
    },
    reservedMicros: priceMicros,
    reservedAt,
    description: work.description,
  };
}

async function askOne(st: RunState, work: ProviderWork, purse: LanePurse, ask: Ask): Promise<void> {
  const { prompt } = ask;
  if (halted(st)) return;
  const unit = await purse.take();
  if (!unit.ok) {
    st.stop ??= unit.reason;
    return;
  }
  const reservedAt = unit.reservedAt;
  let result: { answer: AskResult } | { error: string };
  try {
    const answer = await (
      await st.ctx.assistants()
    ).ask({
      provider: work.provider,
      model: work.model.id,
      prompt: prompt.text,
      context: prompt.context,
      location: st.site.location,
      language: st.site.language,
    });
    result = { answer };
  } catch (err) {
    if (!(err instanceof AssistantError)) {
      await st.purse.release(work.priceMicros, reservedAt);
      throw err;
    }
    result = { error: `${err.reason}: ${err.message}` };
  }
  await st.writer.add(pending(st, work, ask, result, work.priceMicros, reservedAt));
}

async function submitBatches(st: RunState, work: ProviderWork, asks: Ask[]): Promise<void> {
  if (halted(st) || asks.length === 0) return;
  const reservation = await st.purse.reserve(work.priceMicros, asks.length);
  if (reservation.limitedBy) st.stop ??= reservation.limitedBy;
  const items: (BatchItemJson & { ask: Ask })[] = asks.slice(0, reservation.granted).map((ask) => ({
    id: batchItemId(ask),
    promptId: ask.prompt.id,
    sample: ask.sample,
    priceMicros: work.priceMicros,
    context: ask.prompt.context,
    ask,
  }));
  if (items.length === 0) return;
  const reservedAt = st.ctx.clock.now();
  let handle: BatchHandle;
  try {
    handle = await (
      await st.ctx.assistants()
    ).submitBatch(
      items.map((i) => ({
        id: i.id,
        provider: work.provider,
        model: work.model.id,
        prompt: i.ask.prompt.text,
        context: i.context,
        location: st.site.location,
        language: st.site.language,
      })),
    );
  } catch (err) {
    for (const i of items) await st.purse.release(i.priceMicros, reservedAt);
    if (err instanceof AssistantError && !err.retryable) {
      for (const i of items)
        await st.writer.add(pending(st, work, i.ask, { error: `${err.reason}: ${err.message}` }, 0, reservedAt));
      return;
    }
    throw err;
  }
  await st.ctx.db
    .insertInto('scanBatches')
    .values({
      scanId: st.ref.scanId,
      provider: work.provider,
      model: work.model.id,
      handle: JSON.stringify(handle),
      items: JSON.stringify(items.map(({ ask: _ask, ...rest }) => rest)),
    })
    .execute();
}

/** Polls the scan's submitted batches; returns how many are still pending. */
async function pollBatches(st: RunState, works: ProviderWork[], prompts: Map<number, PromptToAsk>): Promise<number> {
  const open = await st.ctx.db
    .selectFrom('scanBatches')
    .selectAll()
    .where('scanId', '=', st.ref.scanId)
    .where('status', '=', 'pending')
    .execute();
  let stillPending = 0;
  for (const batch of open) {
    const work = works.find((w) => w.provider === batch.provider);
    const poll = await (await st.ctx.assistants()).pollBatch(batch.handle as BatchHandle);
    if (!poll.done || !work) {
      stillPending++;
      continue;
    }
    const byId = new Map(poll.results.map((r) => [r.id, r]));
    for (const item of batch.items) {
      const prompt = prompts.get(item.promptId) ?? { id: item.promptId, text: '', context: item.context };
      const r = byId.get(item.id);
      const result = r?.ok
        ? { answer: r.answer }
        : { error: r ? `${r.error.reason}: ${r.error.message}` : 'missing from the batch results' };
      await st.writer.add(
        pending(st, work, { prompt, sample: item.sample ?? 1 }, result, item.priceMicros, batch.submittedAt),
      );
    }
    await st.writer.close();
    await st.ctx.db
      .updateTable('scanBatches')
      .set({ status: 'done', finishedAt: st.ctx.clock.now() })
      .where('id', '=', batch.id)
      .execute();
  }
  return stillPending;
}

async function finish(st: RunState): Promise<void> {
  await endScan(st.ctx, st.ref, st.stop);
}

/**
 * Ends a scan that is running or cancelling: charges what was stored,
 * releases what is still reserved, and marks it done (with the stop reason)
 * or cancelled. Also how the reconciler ends a cancelling scan whose job is
 * gone.
 */
export async function endScan(ctx: AppContext, ref: ScanMoneyRef, stop: RunState['stop']): Promise<void> {
  await scanPurse(ctx, ref).squareUp();
  const current = await ctx.db
    .selectFrom('scans')
    .select('status')
    .where('id', '=', ref.scanId)
    .executeTakeFirstOrThrow();
  const cancelled = current.status === 'cancelling';
  // The final update, with the scan's webhook events in its transaction (domain/webhooks/scan-events.ts).
  await closeScan(
    ctx,
    ref.scanId,
    cancelled ? { status: 'cancelled', stopReason: 'cancelled' } : { status: 'done', stopReason: stop },
    ['running', 'cancelling'],
  );
  // Abandoned batches (cancel, budget) are not polled again; their reservations were released above.
  await ctx.db
    .updateTable('scanBatches')
    .set({ status: 'abandoned', finishedAt: ctx.clock.now() })
    .where('scanId', '=', ref.scanId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * The `scan` job. BUSY when another job holds the site; a `Later` while
 * submitted batches are still running (the job polls again then).
 */
export async function runScan(ctx: AppContext, scanId: number): Promise<{ status: string } | Busy | Later> {
  const first = await ctx.db
    .selectFrom('scans')
    .select(['siteId', 'status'])
    .where('id', '=', scanId)
    .executeTakeFirst();
  if (!first || FINAL.includes(first.status)) return { status: first?.status ?? 'missing' };
  return withSiteLock(ctx, first.siteId, async (lockLost) => {
    const scan = await ctx.db.selectFrom('scans').selectAll().where('id', '=', scanId).executeTakeFirstOrThrow();
    if (FINAL.includes(scan.status)) return { status: scan.status };
    const ref = { scanId, siteId: scan.siteId, orgId: scan.orgId };
    const site = await ctx.db.selectFrom('sites').selectAll().where('id', '=', scan.siteId).executeTakeFirstOrThrow();
    const book = await loadBrandBook(ctx.db, site.id);
    const purse = scanPurse(ctx, ref);
    const st: RunState = {
      ctx,
      purse,
      scan,
      site,
      ref,
      book,
      writer: createAnswerWriter(ctx, purse, book),
      stop: null,
      cancelled: scan.status === 'cancelling',
      lockLost,
    };

    // Calls in flight when a worker died hold reservations nobody will settle: this run holds the lock,
    // so give them back, keeping only what submitted batches still hold.
    const pendingBatches = await ctx.db
      .selectFrom('scanBatches')
      .select('items')
      .where('scanId', '=', scanId)
      .where('status', '=', 'pending')
      .execute();
    const heldByBatches = pendingBatches.reduce((sum, b) => sum + b.items.reduce((s, i) => s + i.priceMicros, 0), 0);
    await purse.squareUp(heldByBatches);
    if (st.cancelled) {
      await finish(st);
      return { status: 'cancelled' };
    }
    await ctx.db
      .updateTable('scans')
      .set({ status: 'running', startedAt: ctx.clock.now() })
      .where('id', '=', scanId)
      .where('status', '=', 'queued')
      .execute();

    const works = providerWork(ctx, scan);
    const promptRows = await ctx.db
      .selectFrom('prompts as p')
      .leftJoin('personas as pe', 'pe.id', 'p.personaId')
      .select(['p.id', 'p.text', 'pe.context'])
      .where('p.id', 'in', scan.plan.promptIds?.length ? scan.plan.promptIds : [0])
      .where('p.siteId', '=', site.id)
      .orderBy('p.id')
      .execute();
    const prompts = new Map(promptRows.map((p) => [p.id, { id: p.id, text: p.text, context: p.context ?? null }]));
    const samples = scan.plan.samples ?? 1;
    const done = await ctx.db
      .selectFrom('answers')
      .select(['promptId', 'provider', 'sample'])
      .where('scanId', '=', scanId)
      .execute();
    const inBatches = new Set(pendingBatches.flatMap((b) => b.items.map((i) => `${i.promptId}|${i.sample ?? 1}`)));
    const doneKeys = new Set(done.map((a) => `${a.provider}|${a.promptId}|${a.sample}`));
    // Sample by sample: a scan stopped by its budget has covered more prompts once than a few prompts thrice.
    const todo = (w: ProviderWork): Ask[] => {
      const asks: Ask[] = [];
      for (let sample = 1; sample <= samples; sample++) {
        for (const p of promptRows) {
          if (
            doneKeys.has(`${w.provider}|${p.id}|${sample}`) ||
            (w.mode !== 'ask' && inBatches.has(`${p.id}|${sample}`))
          )
            continue;
          asks.push({ prompt: prompts.get(p.id) as PromptToAsk, sample });
        }
      }
      return asks;
    };

    const watcher = setInterval(() => {
      ctx.db
        .selectFrom('scans')
        .select('status')
        .where('id', '=', scanId)
        .executeTakeFirst()
        .then(
          (s) => {
            if (s?.status === 'cancelling') st.cancelled = true;
          },
          () => undefined,
        );
    }, CANCEL_CHECK_MS);
    try {
      for (const work of works.filter((w) => w.mode !== 'ask')) {
        const already = await ctx.db
          .selectFrom('scanBatches')
          .select('id')
          .where('scanId', '=', scanId)
          .where('provider', '=', work.provider)
          .executeTakeFirst();
        if (!already) await submitBatches(st, work, todo(work));
      }
      // One share per provider account for the whole site: two lanes on one upstream (AI Overview and AI Mode) split it.
      const shares = new Map<UpstreamKey, Promise<SiteShare>>();
      const shareOf = (upstream: UpstreamKey) => {
        let share = shares.get(upstream);
        if (!share) shares.set(upstream, (share = joinShare(ctx, upstream, site.id)));
        return share;
      };
      try {
        await Promise.all(
          works
            .filter((w) => w.mode === 'ask')
            .map(async (work) => {
              const lane = todo(work);
              if (lane.length === 0) return;
              const share = await shareOf(upstreamOf(work.provider, work.model.id));
              const concurrency = concurrencyFor(ctx, work.provider, work.model.id);
              // The site's share admits each call; this only bounds how many wait for their turn at once.
              const limit = pLimit(concurrency);
              // A block per two rounds of calls the account allows in flight: one reservation for many calls, not one each.
              // The next is reserved when half is taken, so a round's calls find their units while it is under way: it
              // waits behind the scan row, which each answer batch holds until its commit. With blocks of one round,
              // calls waited for it about one time in four on a loaded machine, and every wait gave the slots of
              // the calls waiting back to the gate, to be leased again from Redis (bench/README.md, "worker CPU").
              const purse = st.purse.lane(work.priceMicros, lane.length, 2 * concurrency);
              try {
                await Promise.all(
                  lane.map((ask) =>
                    limit(() =>
                      share.run(
                        () => askOne(st, work, purse, ask),
                        () => halted(st),
                      ),
                    ),
                  ),
                );
              } finally {
                await purse.close();
              }
            }),
        );
      } finally {
        await Promise.all([...shares.values()].map((s) => s.then((share) => share.leave()).catch(() => undefined)));
      }
      await st.writer.close();
      // Answers already paid for are stored above; the run that now holds the lock does the rest.
      if (lockLost.aborted) throw new Error(`scan ${scanId} lost its site lock; another run continues it`);
      const stillPending = halted(st) ? 0 : await pollBatches(st, works, prompts);
      if (stillPending > 0)
        return new Later(`${stillPending} batch(es) of scan ${scanId} still running`, ctx.config.scans.pollMs);
    } finally {
      clearInterval(watcher);
    }
    await finish(st);
    const final = await ctx.db.selectFrom('scans').select('status').where('id', '=', scanId).executeTakeFirstOrThrow();
    return { status: final.status };
  });
}

/** When the job has used all its attempts, the scan ends `failed` and frees the site. */
export async function failScan(ctx: AppContext, scanId: number, error: string): Promise<void> {
  const scan = await ctx.db.selectFrom('scans').select(['siteId', 'orgId']).where('id', '=', scanId).executeTakeFirst();
  if (!scan) return;
  const ref = { scanId, siteId: scan.siteId, orgId: scan.orgId };
  await scanPurse(ctx, ref).squareUp();
  await closeScan(ctx, scanId, { status: 'failed', stopReason: 'error', error }, ['queued', 'running', 'cancelling']);
}
