import type { Db } from '../db/database.ts';
import type { KeyRole, Plan } from '../db/schema.ts';
import { UnauthorizedError } from '../errors.ts';
import { hashKey, isWellFormedKey } from './api-keys.ts';
import { effectiveKeyRole } from './roles.ts';

/** Who is calling: always an API key here; persons sign in through the web app only. */
export interface Principal {
  kind: 'token';
  keyId: number;
  keyName: string;
  role: KeyRole;
  user: { id: number; name: string; email: string };
  org: { id: number; name: string; plan: Plan };
}

const LAST_USE_REFRESH_MS = 5 * 60 * 1000;

/**
 * One indexed query per request, never cached, so a revoked key, a lowered
 * creator or a creator who left takes effect on the very next request, in
 * every process.
 */
export async function authenticateKey(db: Db, key: string | null, now: Date): Promise<Principal> {
  if (!key || !isWellFormedKey(key)) throw new UnauthorizedError();
  const row = await db
    .selectFrom('apiKeys as k')
    .innerJoin('users as u', 'u.id', 'k.createdBy')
    .innerJoin('orgs as o', 'o.id', 'k.orgId')
    .leftJoin('memberships as m', (j) => j.onRef('m.orgId', '=', 'k.orgId').onRef('m.userId', '=', 'k.createdBy'))
    .select([
      'k.id as keyId',
      'k.name as keyName',
      'k.role as keyRole',
      'k.revokedAt',
      'k.lastUsedAt',
      'm.role as creatorRole',
      'u.id as userId',
      'u.name as userName',
      'u.email as userEmail',
      'o.id as orgId',
      'o.name as orgName',
      'o.plan as orgPlan',
    ])
    .where('k.keyHash', '=', hashKey(key))
    .executeTakeFirst();
  if (!row || row.revokedAt || !row.creatorRole) throw new UnauthorizedError();

  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() >= LAST_USE_REFRESH_MS) {
    // Conditional so concurrent requests write it once; not awaited by the caller's answer path.
    await db
      .updateTable('apiKeys')
      .set({ lastUsedAt: now })
      .where('id', '=', row.keyId)
      .where((eb) => eb.or([eb('lastUsedAt', 'is', null), eb('lastUsedAt', '<=', new Date(now.getTime() - LAST_USE_REFRESH_MS))]))
      .execute();
  }

  return {
    kind: 'token',
    keyId: row.keyId,
    keyName: row.keyName,
    role: effectiveKeyRole(row.keyRole, row.creatorRole),
    user: { id: row.userId, name: row.userName, email: row.userEmail },
    org: { id: row.orgId, name: row.orgName, plan: row.orgPlan },
  };
}
