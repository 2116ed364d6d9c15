import type { KeyRole, Role } from '../../db/schema.ts';

export const ROLE_RANK: Record<Role, number> = { viewer: 1, member: 2, admin: 3, owner: 4 };
export const KEY_ROLES = ['viewer', 'member', 'admin'] as const satisfies readonly KeyRole[];
export const PERSON_ROLES = ['viewer', 'member', 'admin', 'owner'] as const satisfies readonly Role[];

export function atLeast(role: Role, needed: Role): boolean {
  return ROLE_RANK[role] >= ROLE_RANK[needed];
}

/** Keys never carry owner: an owner's key acts as admin. */
export function capForKey(role: Role): KeyRole {
  return role === 'owner' ? 'admin' : role;
}

/** A key acts with the lower of the role it was made with and its creator's current role. */
export function effectiveKeyRole(keyRole: KeyRole, creatorRole: Role): KeyRole {
  const creator = capForKey(creatorRole);
  return ROLE_RANK[keyRole] <= ROLE_RANK[creator] ? keyRole : creator;
}
