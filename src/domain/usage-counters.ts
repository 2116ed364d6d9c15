import type { AppContext } from '../context.ts';

/**
 * Scans started this calendar month (UTC) in a workspace. There is no scans
 * table until the scans issue lands, so this is zero by construction until then.
 */
export async function scansUsedThisMonth(_ctx: AppContext, _orgId: number): Promise<number> {
  return 0;
}
