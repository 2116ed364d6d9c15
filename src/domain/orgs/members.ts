import type { AppContext } from '../../context.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { KeyRole, Role } from '../../db/schema.ts';
import { BadRequestError, ForbiddenError, NotFoundError, SignedInOnlyError } from '../../errors.ts';
import { announceKeyChange } from './key-changes.ts';
import { limitsOf } from './plans.ts';
import type { MemberListQuery } from './schemas.ts';

export async function requireMembership(db: Db, orgId: number, userId: number): Promise<{ role: Role }> {
  const row = await db
    .selectFrom('memberships')
    .select('role')
    .where('orgId', '=', orgId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`User ${userId} is not a member of workspace ${orgId}`);
  return row;
}

/** Members plus pending invitations, the count the member limit applies to. */
export async function seatsUsed(db: Db, orgId: number): Promise<number> {
  const [members, pending] = await Promise.all([
    db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', orgId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('invitations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', orgId)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow(),
  ]);
  return Number(members.n) + Number(pending.n);
}

/**
 * Run in the transaction that takes the seat: the workspace row stays locked
 * until it commits, so concurrent invitations and additions are counted one
 * after the other and never pass the limit together.
 */
export async function assertSeatAvailable(db: Executor, orgId: number): Promise<void> {
  const org = await db
    .selectFrom('orgs')
    .selectAll()
    .where('id', '=', orgId)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  const limit = limitsOf(org).members;
  if ((await seatsUsed(db, orgId)) >= limit) {
    throw new BadRequestError(
      `This workspace has reached its limit of ${limit} members (pending invitations count); remove someone or raise the plan`,
    );
  }
}

/** Operator path (CLI): adds or changes a membership, limits enforced for new members. */
export async function addMember(
  ctx: AppContext,
  input: { orgId: number; userId: number; role: Role },
): Promise<{ orgId: number; userId: number; role: Role }> {
  await ctx.db.transaction().execute(async (db) => {
    const existing = await db
      .selectFrom('memberships')
      .select('role')
      .where('orgId', '=', input.orgId)
      .where('userId', '=', input.userId)
      .executeTakeFirst();
    if (!existing) await assertSeatAvailable(db, input.orgId);
    if (input.role === 'owner') {
      const owner = await db
        .selectFrom('memberships')
        .select('userId')
        .where('orgId', '=', input.orgId)
        .where('role', '=', 'owner')
        .executeTakeFirst();
      if (owner && owner.userId !== input.userId)
        throw new BadRequestError(`Workspace ${input.orgId} already has an owner (user ${owner.userId})`);
    }
    await db
      .insertInto('memberships')
      .values(input)
      .onConflict((oc) => oc.columns(['orgId', 'userId']).doUpdateSet({ role: input.role }))
      .execute();
  });
  await announceKeyChange(ctx, input.orgId);
  return input;
}

/**
 * Members a page at a time, oldest first. Pending invitations are listed
 * whole on every page: they count toward the member limit (an invitation
 * past it is refused), so there are never more than the limit allows.
 */
export async function listMembers(ctx: AppContext, orgId: number, query: MemberListQuery) {
  const { db } = ctx;
  const [members, memberCount, invitations, org] = await Promise.all([
    db
      .selectFrom('memberships as m')
      .innerJoin('users as u', 'u.id', 'm.userId')
      .select(['u.id as userId', 'u.name', 'u.email', 'm.role', 'm.createdAt as joinedAt'])
      .where('m.orgId', '=', orgId)
      .orderBy('m.createdAt')
      .orderBy('u.id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    db
      .selectFrom('memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', orgId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('invitations')
      .select(['id', 'email', 'role', 'status', 'createdAt'])
      .where('orgId', '=', orgId)
      .where('status', '=', 'pending')
      .orderBy('createdAt')
      .orderBy('id')
      .execute(),
    db.selectFrom('orgs').selectAll().where('id', '=', orgId).executeTakeFirstOrThrow(),
  ]);
  const limit = limitsOf(org).members;
  const total = Number(memberCount.n);
  return {
    members: members.map((m) => ({ ...m, pending: false })),
    invitations: invitations.map((i) => ({ ...i, pending: true })),
    total,
    page: query.page,
    perPage: query.perPage,
    limit: { members: limit, used: total + invitations.length },
  };
}

interface Actor {
  orgId: number;
  userId: number;
}

async function targetMember(db: Db, actor: Actor, userId: number): Promise<{ role: Role }> {
  const target = await db
    .selectFrom('memberships')
    .select('role')
    .where('orgId', '=', actor.orgId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  if (!target) throw new NotFoundError(`No member with user id ${userId} in this workspace`);
  if (target.role === 'owner') throw new ForbiddenError('The workspace owner cannot be changed or removed');
  return target;
}

export async function changeMemberRole(ctx: AppContext, actor: Actor, userId: number, input: { role: KeyRole }) {
  const { db } = ctx;
  const { role } = input;
  await targetMember(db, actor, userId);
  const row = await db
    .updateTable('memberships')
    .set({ role })
    .where('orgId', '=', actor.orgId)
    .where('userId', '=', userId)
    .returning(['userId', 'role'])
    .executeTakeFirstOrThrow();
  await announceKeyChange(ctx, actor.orgId);
  return { member: row };
}

/** The removed person's keys stop at once: authentication requires the creator's membership. */
export async function removeMember(ctx: AppContext, actor: Actor, userId: number): Promise<void> {
  // Leaving a workspace is a signed-in action; a key removing its own creator is exactly that.
  if (userId === actor.userId) throw new SignedInOnlyError();
  await targetMember(ctx.db, actor, userId);
  await ctx.db.deleteFrom('memberships').where('orgId', '=', actor.orgId).where('userId', '=', userId).execute();
  await announceKeyChange(ctx, actor.orgId);
}

/** Operator path (CLI): removes anyone, the owner included. */
export async function removeMemberAsOperator(ctx: AppContext, orgId: number, userId: number): Promise<void> {
  const res = await ctx.db
    .deleteFrom('memberships')
    .where('orgId', '=', orgId)
    .where('userId', '=', userId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw new NotFoundError(`User ${userId} is not a member of workspace ${orgId}`);
  await announceKeyChange(ctx, orgId);
}
