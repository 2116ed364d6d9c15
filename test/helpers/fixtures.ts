import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../src/context.ts';
import type { TestApp } from './app.ts';
import type { KeyRole, Plan, Role } from '../../src/db/schema.ts';
import { createApiKey } from '../../src/domain/orgs/api-keys.ts';
import { addMember } from '../../src/domain/orgs/members.ts';
import { createOrg, setOrgLimits } from '../../src/domain/orgs/orgs.ts';
import { createUser } from '../../src/domain/orgs/users.ts';
import { usdToMicros } from '../../src/money.ts';

export interface Org {
  orgId: number;
  ownerId: number;
  /** One key per key role, each made by a person of that role. */
  keys: Record<KeyRole, string>;
  users: Record<KeyRole, number>;
}

const unique = () => randomBytes(4).toString('hex');

export async function addPerson(
  ctx: AppContext,
  orgId: number,
  role: Role,
  name: string = role,
): Promise<{ userId: number; key: string | null }> {
  const user = await createUser(ctx, { email: `${name}-${unique()}@example.com`, name: `${name} person` });
  await addMember(ctx, { orgId, userId: user.id, role });
  const key = role === 'owner' ? null : (await createApiKey(ctx, { orgId, userId: user.id, name: `${role} key` })).key;
  return { userId: user.id, key };
}

/** A workspace with an owner and one person (and key) per key role, created through the same domain functions as the CLI. */
export async function seedOrg(
  ctx: AppContext,
  options: { plan?: Plan; balanceUsd?: number; name?: string } = {},
): Promise<Org> {
  const org = await createOrg(ctx, {
    name: options.name ?? `Workspace ${unique()}`,
    plan: options.plan ?? 'pro',
    balanceMicros: usdToMicros(options.balanceUsd ?? 0),
  });
  // Roomy limits so fixtures never trip them unless a test lowers them.
  await setOrgLimits(ctx, org.id, { members: 50 });
  const owner = await addPerson(ctx, org.id, 'owner');
  const keys = {} as Record<KeyRole, string>;
  const users = {} as Record<KeyRole, number>;
  for (const role of ['viewer', 'member', 'admin'] as const) {
    const person = await addPerson(ctx, org.id, role);
    keys[role] = person.key as string;
    users[role] = person.userId;
  }
  return { orgId: org.id, ownerId: owner.userId, keys, users };
}

/**
 * The reports tests' usual site, made through the API: brand Acme (acme.com)
 * tracking Globex (globex.com) and Initech (initech.com). Answers the site id
 * and its competitors' ids by name.
 */
export async function addAcmeSite(app: TestApp, ws: Org): Promise<{ id: number; competitors: Record<string, number> }> {
  const res = await app.request('POST', `/orgs/${ws.orgId}/projects`, {
    key: ws.keys.admin,
    body: {
      name: 'Acme',
      url: 'acme.com',
      competitors: [
        { name: 'Globex', domain: 'globex.com' },
        { name: 'Initech', domain: 'initech.com' },
      ],
    },
  });
  if (res.status !== 200) throw new Error(`creating the Acme site answered ${res.status}: ${res.text}`);
  const site = res.body.project as { id: number; competitors: { id: number; name: string }[] };
  return { id: site.id, competitors: Object.fromEntries(site.competitors.map((c) => [c.name, c.id])) };
}
