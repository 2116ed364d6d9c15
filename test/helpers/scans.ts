import type { AppContext } from '../../src/context.ts';
import type { TestApp } from './app.ts';

/** Active prompts inserted directly: scans only need them to exist. */
export async function addActivePrompts(ctx: AppContext, siteId: number, texts: string[]): Promise<number[]> {
  if (texts.length === 0) return [];
  const rows = await ctx.db
    .insertInto('prompts')
    .values(texts.map((text) => ({ siteId, text, status: 'active' as const })))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function waitForScan(app: TestApp, key: string, siteId: number, scanId: number, timeout = 20_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const res = await app.request('GET', `/projects/${siteId}/scans/${scanId}`, { key });
    if (['done', 'failed', 'cancelled'].includes(res.body.scan.status)) return res.body;
    if (Date.now() > deadline) throw new Error(`scan ${scanId} still ${res.body.scan.status} after ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function script(app: TestApp, body: unknown): Promise<void> {
  const res = await fetch(`${app.simulatorUrl}/__sim/script`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`script refused: ${await res.text()}`);
}

/** The money invariants: ledger charges equal stored answers' costs, nothing stays reserved, balance is the ledger's projection. */
export async function moneyFacts(ctx: AppContext, orgId: number, scanId: number) {
  const [org, scan, charges, answers, ledger] = await Promise.all([
    ctx.db
      .selectFrom('orgs')
      .select(['balanceMicros', 'reservedMicros'])
      .where('id', '=', orgId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('scans')
      .select(['spentMicros', 'reservedMicros', 'budgetMicros'])
      .where('id', '=', scanId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('ledgerEntries')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('amountMicros'), eb.lit(0)).as('sum'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('scanId', '=', scanId)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('answers')
      .select((eb) => [
        eb.fn.coalesce(eb.fn.sum<number>('costMicros'), eb.lit(0)).as('sum'),
        eb.fn.countAll<number>().as('n'),
      ])
      .where('scanId', '=', scanId)
      .where('error', 'is', null)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('ledgerEntries')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('amountMicros'), eb.lit(0)).as('sum'))
      .where('orgId', '=', orgId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    balance: org.balanceMicros,
    orgReserved: org.reservedMicros,
    scanReserved: scan.reservedMicros,
    scanSpent: scan.spentMicros,
    budget: scan.budgetMicros,
    charged: -Number(charges.sum),
    charges: Number(charges.n),
    answersCost: Number(answers.sum),
    answered: Number(answers.n),
    ledgerBalance: Number(ledger.sum),
  };
}
