import { sql } from 'kysely';
import { CATALOG } from '../../assistants/catalog.ts';
import type { AppContext } from '../../context.ts';
import type { ScanRow, ScanTrigger, SiteRow } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, PaymentRequiredError } from '../../errors.ts';
import { formatUsd, microsToUsd } from '../../money.ts';
import { utcMonthFirstDay } from '../../dates.ts';
import { ensureAnswerMonths, answersWithFacts, serializeAnswer } from '../facts/index.ts';
import { limitsOf, scansUsedThisMonth } from '../orgs/index.ts';
import { providerView } from '../providers/index.ts';
import { planScan, type ScanPlan, type ScanRequest } from './plan.ts';
import type { ScanDetailQuery, ScanListQuery, ScanTab } from './schemas.ts';
import type { Verdict } from '../../analysis/index.ts';
import { serializeScanSettings } from '../sites/index.ts';
import { ACTIVE_SCAN_STATUSES, serializeScan } from '../common/index.ts';

export async function siteSpendThisMonth(ctx: AppContext, siteId: number): Promise<number> {
  const row = await ctx.db
    .selectFrom('siteSpend')
    .select('spentMicros')
    .where('siteId', '=', siteId)
    .where('month', '=', utcMonthFirstDay(ctx.clock.now()))
    .executeTakeFirst();
  return row?.spentMicros ?? 0;
}

export async function scanOptions(ctx: AppContext, site: SiteRow) {
  const [categories, active, used, spend, org] = await Promise.all([
    ctx.db
      .selectFrom('categories as c')
      .leftJoin('promptCategories as pc', 'pc.categoryId', 'c.id')
      .leftJoin('prompts as p', (j) => j.onRef('p.id', '=', 'pc.promptId').on('p.status', '=', 'active'))
      .select(['c.name', (eb) => eb.fn.count<number>('p.id').as('activePrompts')])
      .where('c.siteId', '=', site.id)
      .groupBy('c.name')
      .orderBy('c.name')
      .execute(),
    ctx.db
      .selectFrom('prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('status', '=', 'active')
      .executeTakeFirstOrThrow(),
    scansUsedThisMonth(ctx, site.orgId),
    siteSpendThisMonth(ctx, site.id),
    ctx.db.selectFrom('orgs').selectAll().where('id', '=', site.orgId).executeTakeFirstOrThrow(),
  ]);
  const allowed = site.allowedProviders;
  return {
    providers: CATALOG.map((p) => ({ ...providerView(ctx.config, p), allowed: !allowed || allowed.includes(p.key) })),
    activePrompts: Number(active.n),
    categories: categories.map((c) => ({ name: c.name, activePrompts: Number(c.activePrompts) })),
    scansUsedThisMonth: used,
    scansPerMonth: limitsOf(org).scansPerMonth,
    spendThisMonthUsd: microsToUsd(spend),
    monthlyCapUsd: site.monthlyCapMicros === null ? null : microsToUsd(site.monthlyCapMicros),
    balanceUsd: microsToUsd(org.balanceMicros - org.reservedMicros),
    saved: serializeScanSettings(site.scanSettings),
    batchAvailable: ctx.config.apiVariant.includes('B'),
  };
}

function estimateView(plan: ScanPlan) {
  return {
    prompts: plan.promptIds.length,
    answers: plan.answers,
    cost: microsToUsd(plan.costMicros),
    formatted: formatUsd(plan.costMicros),
    batch: plan.batch,
    samples: plan.samples,
    providers: plan.providers.map((p) => ({
      provider: p.provider,
      model: p.model.id,
      batch: p.batch,
      simulated: p.simulated,
      answers: plan.promptIds.length * plan.samples,
      costPerAnswerUsd: microsToUsd(p.priceMicros),
      costUsd: microsToUsd(p.priceMicros * plan.promptIds.length * plan.samples),
    })),
  };
}

export async function estimateScan(ctx: AppContext, site: SiteRow, req: ScanRequest) {
  return estimateView(await planScan(ctx, site, req));
}

/**
 * Starts a scan: every refusal of the spec with its reason, then one row
 * (the partial unique index makes "one scan per site" hold under concurrent
 * starts) and its job.
 */
export async function startScan(
  ctx: AppContext,
  site: SiteRow,
  userId: number | null,
  req: ScanRequest,
  trigger: Exclude<ScanTrigger, 'import'> = 'manual',
  options: { delayMs?: number } = {},
) {
  const plan = await planScan(ctx, site, req);
  const active = await ctx.db
    .selectFrom('scans')
    .select('id')
    .where('siteId', '=', site.id)
    .where('status', 'in', ACTIVE_SCAN_STATUSES)
    .executeTakeFirst();
  if (active)
    throw new BadRequestError(`Another scan (id ${active.id}) is running on this project; wait for it or cancel it`);
  if (plan.promptIds.length === 0)
    throw new BadRequestError('There are no active prompts to scan; activate some prompts first');

  const org = await ctx.db.selectFrom('orgs').selectAll().where('id', '=', site.orgId).executeTakeFirstOrThrow();
  const skipAtCap = site.scanSettings.skipAtCap ?? true;
  if (site.monthlyCapMicros !== null && skipAtCap) {
    const spent = await siteSpendThisMonth(ctx, site.id);
    if (spent >= site.monthlyCapMicros) {
      throw new BadRequestError(
        `This project's monthly cap of ${formatUsd(site.monthlyCapMicros)} is spent (${formatUsd(spent)} this month)`,
      );
    }
  }
  const available = org.balanceMicros - org.reservedMicros;
  if (available < plan.costMicros) {
    const message = `The balance (${formatUsd(available)}) does not cover this scan's estimated cost of ${formatUsd(plan.costMicros)}; top up first`;
    // CONTRACT.md: 402 when the deployment serves variant A (or both), 400 for B alone.
    throw ctx.config.apiVariant === 'B' ? new BadRequestError(message) : new PaymentRequiredError(message);
  }
  const limit = limitsOf(org).scansPerMonth;
  // The workspace row stays locked until the insert commits: concurrent starts are counted one after the other.
  const scan = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('orgs').select('id').where('id', '=', site.orgId).forNoKeyUpdate().executeTakeFirstOrThrow();
    if ((await scansUsedThisMonth(ctx, site.orgId, trx)) >= limit)
      throw new BadRequestError(`This workspace has used its limit of ${limit} scans this month`);
    return trx
      .insertInto('scans')
      .values({
        orgId: site.orgId,
        siteId: site.id,
        trigger,
        label: req.label?.trim() || null,
        batch: plan.batch,
        plan: JSON.stringify({
          providers: plan.providers.map((p) => p.provider),
          models: Object.fromEntries(plan.providers.map((p) => [p.provider, p.model.id])),
          promptIds: plan.promptIds,
          category: plan.category,
          sample: req.sample ?? null,
          samples: plan.samples,
          simulated: plan.providers.filter((p) => p.simulated).map((p) => p.provider),
          free: plan.providers.filter((p) => p.free).map((p) => p.provider),
        }),
        budgetMicros: plan.budgetMicros,
        answersTotal: plan.answers,
        createdBy: userId,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((err: { code?: string; constraint?: string }) => {
        if (err.code === '23505' && err.constraint === 'scans_one_active_per_site')
          throw new BadRequestError('Another scan is running on this project; wait for it or cancel it');
        throw err;
      });
  });
  // Its answers' partition, should the nightly job not have made it ahead (one catalog look-up when it has).
  await ensureAnswerMonths(ctx.db, scan.createdAt);
  await ctx.jobs.enqueue('scan', { scanId: scan.id }, { jobId: `scan-${scan.id}`, delayMs: options.delayMs });
  return { scan: serializeScan(scan), estimate: estimateView(plan) };
}

export async function findScan(ctx: AppContext, siteId: number, scanId: number): Promise<ScanRow> {
  const scan = await ctx.db
    .selectFrom('scans')
    .selectAll()
    .where('id', '=', scanId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!scan) throw new NotFoundError(`No scan with id ${scanId}`);
  return scan;
}

/** Queued scans stop at once; running ones finish the answer in hand and stop (cancelling, then cancelled). */
export async function cancelScan(ctx: AppContext, site: SiteRow, scanId: number) {
  const scan = await findScan(ctx, site.id, scanId);
  const now = ctx.clock.now();
  const updated = await ctx.db
    .updateTable('scans')
    .set({
      status: sql`CASE WHEN status = 'queued' THEN 'cancelled' ELSE 'cancelling' END`,
      stopReason: 'cancelled',
      cancelRequestedAt: now,
      finishedAt: sql`CASE WHEN status = 'queued' THEN ${now}::timestamptz ELSE finished_at END`,
    })
    .where('id', '=', scan.id)
    .where('status', 'in', ['queued', 'running'])
    .returningAll()
    .executeTakeFirst();
  if (!updated)
    throw new BadRequestError(`Scan ${scanId} is ${scan.status}; only a queued or running scan can be cancelled`);
  return { scan: serializeScan(updated) };
}

/** Newest first, a page at a time; the first page is the last 30 scans unless asked otherwise. */
export async function listScans(ctx: AppContext, site: SiteRow, query: ScanListQuery) {
  const [count, rows] = await Promise.all([
    ctx.db
      .selectFrom('scans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('scans')
      .selectAll()
      .where('siteId', '=', site.id)
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return { scans: rows.map(serializeScan), total: Number(count.n), page: query.page, perPage: query.perPage };
}

/** The scan in progress with its pace (answers a minute) and an estimate of the time left. */
export async function liveScan(ctx: AppContext, site: SiteRow) {
  const scan = await ctx.db
    .selectFrom('scans')
    .selectAll()
    .where('siteId', '=', site.id)
    .where('status', 'in', ACTIVE_SCAN_STATUSES)
    .executeTakeFirst();
  if (!scan) return { run: null };
  const done = scan.answersDone + scan.answersFailed;
  const elapsedMs = scan.startedAt ? ctx.clock.now().getTime() - scan.startedAt.getTime() : 0;
  const perMinute = elapsedMs > 0 && done > 0 ? (done / elapsedMs) * 60_000 : null;
  const left = Math.max(0, scan.answersTotal - done);
  return {
    run: {
      ...serializeScan(scan),
      progress: scan.answersTotal ? Math.round((done / scan.answersTotal) * 1000) / 10 : 0,
      pacePerMinute: perMinute === null ? null : Math.round(perMinute * 10) / 10,
      timeLeftSeconds: perMinute ? Math.round((left / perMinute) * 60) : null,
    },
  };
}

const TAB_VERDICTS: Record<ScanTab, readonly Verdict[] | null> = {
  all: null,
  notNamed: ['lost', 'missing'],
  competitorsOnly: ['lost'],
  errors: ['failed'],
};
const PAGE_SIZE = 25;

/** One scan and its collected answers, 25 a page, filtered by tab and assistant. */
export async function scanDetail(ctx: AppContext, site: SiteRow, scanId: number, q: ScanDetailQuery) {
  const scan = await findScan(ctx, site.id, scanId);
  let base = answersWithFacts(ctx).where('a.scanId', '=', scan.id);
  const verdicts = TAB_VERDICTS[q.tab];
  if (verdicts) base = base.where('f.verdict', 'in', [...verdicts]);
  if (q.engine) base = base.where('a.provider', '=', q.engine);
  const [rows, count] = await Promise.all([
    base
      .orderBy('a.id')
      .limit(PAGE_SIZE)
      .offset((q.page - 1) * PAGE_SIZE)
      .execute(),
    base
      .clearSelect()
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    scan: serializeScan(scan),
    answers: rows.map(serializeAnswer),
    total: Number(count.n),
    page: q.page,
    perPage: PAGE_SIZE,
    tab: q.tab,
    engine: q.engine ?? null,
  };
}
