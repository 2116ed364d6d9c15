import { createHash, randomBytes } from 'node:crypto';
import type { AppContext } from '../../context.ts';
import type { KeyRole } from '../../db/schema.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';
import { assertSeatAvailable } from './members.ts';
import { consumeRateLimit } from './rate-limits.ts';

export async function inviteMember(
  ctx: AppContext,
  actor: { orgId: number; userId: number },
  input: { email: string; role: KeyRole },
) {
  const { db } = ctx;
  const email = input.email.trim();
  const member = await db
    .selectFrom('memberships as m')
    .innerJoin('users as u', 'u.id', 'm.userId')
    .select('u.id')
    .where('m.orgId', '=', actor.orgId)
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (member) throw new ConflictError(`${email} is already a member of this workspace`, { email: 'already a member' });
  const pending = await db
    .selectFrom('invitations')
    .select('id')
    .where('orgId', '=', actor.orgId)
    .where('status', '=', 'pending')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (pending)
    throw new ConflictError(`${email} already has a pending invitation (id ${pending.id})`, {
      email: 'already invited',
    });
  await consumeRateLimit(ctx, 'invitations', actor.orgId);
  // The token is what an emailed link would carry; only its hash is kept, like keys.
  const token = randomBytes(24).toString('base64url');
  const invitation = await db.transaction().execute(async (trx) => {
    await assertSeatAvailable(trx, actor.orgId);
    return trx
      .insertInto('invitations')
      .values({
        orgId: actor.orgId,
        email,
        role: input.role,
        invitedBy: actor.userId,
        tokenHash: createHash('sha256').update(token).digest('hex'),
      })
      .returning(['id', 'email', 'role', 'status', 'createdAt'])
      .executeTakeFirstOrThrow()
      .catch((err: { code?: string }) => {
        if (err.code === '23505')
          throw new ConflictError(`${email} already has a pending invitation`, { email: 'already invited' });
        throw err;
      });
  });
  return { invitation: { ...invitation, pending: true } };
}

export async function cancelInvitation(ctx: AppContext, orgId: number, invitationId: number): Promise<void> {
  const res = await ctx.db
    .updateTable('invitations')
    .set({ status: 'cancelled' })
    .where('id', '=', invitationId)
    .where('orgId', '=', orgId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw new NotFoundError(`No pending invitation with id ${invitationId}`);
}
