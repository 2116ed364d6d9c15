import { hash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { KeyRole } from '../../db/schema.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { ROLE_RANK, capForKey } from './roles.ts';
import { refusalsOf } from './key-cache.ts';
import { announceKeyChange } from './key-changes.ts';
import { requireMembership } from './members.ts';

export const KEY_PREFIX = 'slk_';
const KEY_BODY = /^[A-Za-z0-9_-]{40}$/;

/** 30 random bytes in base64url are exactly 40 characters of [A-Za-z0-9_-]. */
export function generateKey(): string {
  return KEY_PREFIX + randomBytes(30).toString('base64url');
}

export function isWellFormedKey(key: string): boolean {
  return key.startsWith(KEY_PREFIX) && KEY_BODY.test(key.slice(KEY_PREFIX.length));
}

export function hashKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export interface CreatedKey {
  id: number;
  key: string;
  name: string;
  prefix: string;
  role: KeyRole;
  orgId: number;
  userId: number;
}

/** Without a role the key gets the creator's own role (an owner's key is admin); never more. */
export async function createApiKey(
  ctx: AppContext,
  input: { orgId: number; userId: number; name: string; role?: KeyRole },
): Promise<CreatedKey> {
  const { db } = ctx;
  const membership = await requireMembership(db, input.orgId, input.userId);
  const cap = capForKey(membership.role);
  const role = input.role ?? cap;
  if (ROLE_RANK[role] > ROLE_RANK[cap]) {
    throw new BadRequestError(
      `A key cannot have more access than its creator: user ${input.userId} is ${membership.role} in workspace ${input.orgId}`,
    );
  }
  const name = input.name.trim();
  if (!name) throw new BadRequestError('A key needs a name');
  const key = generateKey();
  const prefix = key.slice(0, 8);
  const row = await db
    .insertInto('apiKeys')
    .values({ orgId: input.orgId, createdBy: input.userId, name, prefix, keyHash: hashKey(key), role })
    .returning(['id'])
    .executeTakeFirstOrThrow();
  // A key made here works here at once: this process forgets its refusals (rare, and cheap to learn again).
  refusalsOf(ctx).clear();
  return { id: row.id, key, name, prefix, role, orgId: input.orgId, userId: input.userId };
}

export async function revokeApiKey(ctx: AppContext, keyId: number): Promise<{ id: number; revokedAt: Date }> {
  const { db } = ctx;
  const at = ctx.clock.now();
  const row = await db
    .updateTable('apiKeys')
    .set({ revokedAt: at })
    .where('id', '=', keyId)
    .where('revokedAt', 'is', null)
    .returning(['id', 'revokedAt', 'orgId'])
    .executeTakeFirst();
  if (!row?.revokedAt) {
    const exists = await db.selectFrom('apiKeys').select('revokedAt').where('id', '=', keyId).executeTakeFirst();
    if (!exists) throw new NotFoundError(`No key with id ${keyId}`);
    return { id: keyId, revokedAt: exists.revokedAt ?? at };
  }
  await announceKeyChange(ctx, row.orgId);
  return { id: row.id, revokedAt: row.revokedAt };
}
