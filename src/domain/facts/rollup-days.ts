import type { Db } from '../../db/database.ts';

/** The last day a site's rollups hold answers for, null before its first answer. */
export async function latestDayWithData(db: Db, siteId: number): Promise<string | null> {
  const row = await db
    .selectFrom('rollupSiteDay')
    .select((eb) => eb.fn.max('day').as('day'))
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  return row?.day ?? null;
}
