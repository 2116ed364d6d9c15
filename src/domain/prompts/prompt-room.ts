import type { Db } from '../../db/database.ts';
import { BadRequestError } from '../../errors.ts';
import { limitsOf } from '../orgs/index.ts';

export interface PromptRoom {
  limit: number;
  used: number;
  /** Prompts that may still be added. */
  free: number;
}

/** Prompts of the site (any status) against the workspace's prompts-per-site limit. Call under lockSite. */
export async function promptRoom(db: Db, site: { id: number; orgId: number }): Promise<PromptRoom> {
  const [org, count] = await Promise.all([
    db
      .selectFrom('orgs')
      .select(['plan', 'limitSites', 'limitPromptsPerSite', 'limitScansPerMonth', 'limitMembers'])
      .where('id', '=', site.orgId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('prompts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
  ]);
  const limit = limitsOf(org).promptsPerSite;
  const used = Number(count.n);
  return { limit, used, free: Math.max(0, limit - used) };
}

export function limitMessage(limit: number): string {
  return `This site has reached the workspace's limit of ${limit} prompts per site; delete prompts or raise the plan`;
}

export async function assertPromptRoom(db: Db, site: { id: number; orgId: number }, adding: number): Promise<void> {
  const room = await promptRoom(db, site);
  if (room.free < adding) throw new BadRequestError(limitMessage(room.limit));
}
