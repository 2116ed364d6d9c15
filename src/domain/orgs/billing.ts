import { sql } from 'kysely';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { CATALOG, defaultModel } from '../../assistants/catalog.ts';
import { chargedPrice } from '../providers/index.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { formatUsd, microsToUsd, type Micros } from '../../money.ts';
import { monthKey, startOfUtcMonth } from '../../dates.ts';

/** Credits the balance and records the ledger entry in one transaction. */
export async function topUp(
  ctx: AppContext,
  input: { orgId: number; amountMicros: Micros; createdBy?: number | null; description?: string },
) {
  const { db } = ctx;
  if (!Number.isSafeInteger(input.amountMicros) || input.amountMicros <= 0)
    throw new BadRequestError('A top-up must be a positive amount');
  return db.transaction().execute(async (trx) => {
    const org = await trx
      .updateTable('orgs')
      .set((eb) => ({ balanceMicros: eb('balanceMicros', '+', input.amountMicros) }))
      .where('id', '=', input.orgId)
      .returning(['balanceMicros'])
      .executeTakeFirst();
    if (!org) throw new NotFoundError(`No workspace with id ${input.orgId}`);
    await trx
      .insertInto('ledgerEntries')
      .values({
        orgId: input.orgId,
        kind: 'topup',
        amountMicros: input.amountMicros,
        balanceAfterMicros: org.balanceMicros,
        createdBy: input.createdBy ?? null,
        description: input.description ?? 'Top-up',
      })
      .execute();
    return { balanceMicros: org.balanceMicros };
  });
}

/** Spend (charges, as positive micros) per site since a moment. */
export async function siteSpendSince(db: Db, orgId: number, since: Date): Promise<Map<number, Micros>> {
  const rows = await db
    .selectFrom('ledgerEntries')
    .select(['siteId', sql<number>`coalesce(-sum(amount_micros), 0)::bigint`.as('spent')])
    .where('orgId', '=', orgId)
    .where('kind', '=', 'charge')
    .where('createdAt', '>=', since)
    .groupBy('siteId')
    .execute();
  return new Map(rows.filter((r) => r.siteId !== null).map((r) => [r.siteId as number, Number(r.spent)]));
}

const usd = (micros: Micros) => ({ usd: microsToUsd(micros), formatted: formatUsd(micros) });

export async function usage(ctx: AppContext, orgId: number) {
  const { db } = ctx;
  const now = ctx.clock.now();
  const monthStart = startOfUtcMonth(now);
  const sixMonthsStart = startOfUtcMonth(now, 5);
  const [org, topups, sites, spend, monthly] = await Promise.all([
    db.selectFrom('orgs').select(['balanceMicros']).where('id', '=', orgId).executeTakeFirstOrThrow(),
    db
      .selectFrom('ledgerEntries')
      .select(['id', 'amountMicros', 'description', 'createdAt'])
      .where('orgId', '=', orgId)
      .where('kind', '=', 'topup')
      .orderBy('createdAt', 'desc')
      .orderBy('id', 'desc')
      .limit(50)
      .execute(),
    db
      .selectFrom('sites')
      .select(['id', 'name', 'domain', 'monthlyCapMicros'])
      .where('orgId', '=', orgId)
      .orderBy('id')
      .execute(),
    siteSpendSince(db, orgId, monthStart),
    db
      .selectFrom('ledgerEntries')
      .select([
        sql<Date>`date_trunc('month', created_at AT TIME ZONE 'UTC')`.as('month'),
        sql<number>`coalesce(-sum(amount_micros), 0)::bigint`.as('spent'),
      ])
      .where('orgId', '=', orgId)
      .where('kind', '=', 'charge')
      .where('createdAt', '>=', sixMonthsStart)
      .groupBy(sql`1`)
      .execute(),
  ]);
  const byMonth = new Map(
    monthly.map((m) => [monthKey(new Date(`${String(m.month).slice(0, 10)}T00:00:00Z`)), Number(m.spent)]),
  );
  const monthTotal = [...spend.values()].reduce((a, b) => a + b, 0);
  return {
    balanceUsd: microsToUsd(org.balanceMicros),
    balance: formatUsd(org.balanceMicros),
    topups: topups.map((t) => ({
      id: t.id,
      amountUsd: microsToUsd(t.amountMicros),
      formatted: formatUsd(t.amountMicros),
      description: t.description,
      createdAt: t.createdAt,
    })),
    costs: {
      month: monthKey(now),
      thisMonthUsd: microsToUsd(monthTotal),
      formatted: formatUsd(monthTotal),
      sites: sites.map((s) => {
        const spent = spend.get(s.id) ?? 0;
        return {
          siteId: s.id,
          name: s.name,
          domain: s.domain,
          spendThisMonthUsd: microsToUsd(spent),
          monthlyCapUsd: s.monthlyCapMicros === null ? null : microsToUsd(s.monthlyCapMicros),
          capSpent: s.monthlyCapMicros !== null && spent >= s.monthlyCapMicros,
        };
      }),
      lastSixMonths: Array.from({ length: 6 }, (_, i) => {
        const key = monthKey(startOfUtcMonth(now, 5 - i));
        const spent = byMonth.get(key) ?? 0;
        return { month: key, costUsd: microsToUsd(spent), formatted: formatUsd(spent) };
      }),
      // As charged: 0 for an assistant the simulator answers because its credential is missing (auto mode).
      pricePerAnswer: CATALOG.map((p) => {
        const model = defaultModel(p.key);
        const price = chargedPrice(ctx.config, p.key, model, false);
        return { provider: p.key, model: model.id, priceUsd: usd(price).usd, formatted: usd(price).formatted };
      }),
    },
  };
}
