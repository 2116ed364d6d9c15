import type { AppContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';

export async function createUser(ctx: AppContext, input: { email: string; name: string }) {
  const { db } = ctx;
  const email = input.email.trim();
  const existing = await db
    .selectFrom('users')
    .select('id')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .executeTakeFirst();
  if (existing) throw new ConflictError(`A user with email ${email} already exists (id ${existing.id})`);
  return db
    .insertInto('users')
    .values({ email, name: input.name.trim() })
    .returning(['id', 'email', 'name', 'createdAt'])
    .executeTakeFirstOrThrow();
}
