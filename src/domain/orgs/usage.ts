import type { AppContext } from '../../context.ts';
import type { Executor } from '../../db/database.ts';
import { startOfUtcMonth } from '../../dates.ts';

/** Scans the workspace started this month (imports not counted), against its plan's scans-per-month limit. */
export async function scansUsedThisMonth(ctx: AppContext, orgId: number, db: Executor = ctx.db): Promise<number> {
  const row = await db
    .selectFrom('scans')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('orgId', '=', orgId)
    .where('trigger', '!=', 'import')
    .where('createdAt', '>=', startOfUtcMonth(ctx.clock.now()))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
