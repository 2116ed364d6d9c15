import type { Db } from '../../db/database.ts';

/**
 * Serialises writers that count or name a site's prompts, categories and
 * personas (creates, imports, merges), so a limit check and its insert see
 * the same count. NO KEY UPDATE rather than UPDATE: it conflicts with every
 * other writer taking this lock, yet not with the key-share locks that
 * inserts elsewhere (answers, scans, competitors) take through their foreign
 * keys, so a running import does not stall a scan's writes.
 */
export async function lockSite(db: Db, siteId: number): Promise<void> {
  await db.selectFrom('sites').select('id').where('id', '=', siteId).forNoKeyUpdate().executeTakeFirstOrThrow();
}
