import { sql } from 'kysely';
import { ACTIVE_SCAN_STATUSES, BUSY, withSiteLock } from '../common/index.ts';
import type { AppContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { findSiteForOperator } from './sites.ts';

/**
 * Deletes a site with every row of it: prompts, answers and facts, scans,
 * rollups, pages, checks, events, share links... (`sightline site delete`;
 * the web app's `DELETE /projects/:id`, a signed-in owner's action that
 * keys are refused, is meant to call this same function).
 *
 * Every table with a site_id references sites ON DELETE CASCADE, and a
 * trigger on sites deletes the rollup tables' rows (migration
 * 20261129T1000), so deleting the site row removes the rest; answers and facts, by far the largest, are deleted
 * first in the same transaction so their cascade is one indexed statement
 * each rather than a trigger per row. Ledger entries stay: money history
 * outlives the site, with site_id and scan_id set null by their foreign
 * keys and answer_id kept as a plain id; the balance is still their sum.
 *
 * Refused while a scan is queued or running (its reservation is money
 * held on the workspace: cancel it first) or another job holds the site's
 * lock. One transaction: a failure leaves the site whole.
 */
export async function deleteSite(ctx: AppContext, siteId: number) {
  const site = await findSiteForOperator(ctx, siteId);
  const deleted = await withSiteLock(ctx, siteId, () =>
    ctx.db.transaction().execute(async (trx) => {
      // The row lock also holds back a scan starting now (its insert waits on the site, then finds it gone).
      await trx.selectFrom('sites').select('id').where('id', '=', siteId).forUpdate().executeTakeFirstOrThrow();
      const active = await trx
        .selectFrom('scans')
        .select('id')
        .where('siteId', '=', siteId)
        .where('status', 'in', ACTIVE_SCAN_STATUSES)
        .executeTakeFirst();
      if (active)
        throw new ConflictError(
          `Scan ${active.id} of project ${siteId} is still active; cancel it and wait for it to stop first`,
        );
      await trx.deleteFrom('answerFacts').where('siteId', '=', siteId).execute();
      // The one table with a site_id and no foreign key (its rows are checked in bulk by log imports).
      await trx.deleteFrom('trafficSeen').where('siteId', '=', siteId).execute();
      const answers = await trx.deleteFrom('answers').where('siteId', '=', siteId).executeTakeFirst();
      const prompts = await sql<{
        n: number;
      }>`SELECT count(*)::int AS n FROM prompts WHERE site_id = ${siteId}`.execute(trx);
      await trx.deleteFrom('sites').where('id', '=', siteId).execute();
      return {
        id: site.id,
        orgId: site.orgId,
        name: site.name,
        domain: site.domain,
        deleted: true,
        answers: Number(answers.numDeletedRows),
        prompts: prompts.rows[0]?.n ?? 0,
      };
    }),
  );
  if (deleted === BUSY)
    throw new ConflictError(`Project ${siteId} is busy (a scan or reanalysis holds it); try again when it is done`);
  return deleted;
}
