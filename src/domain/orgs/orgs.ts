import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { Plan, Role } from '../../db/schema.ts';
import type { Principal } from './auth.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { microsToUsd, formatUsd, type Micros } from '../../money.ts';
import { topUp } from './billing.ts';
import { limitsOf, type OrgLimits } from './plans.ts';
import { retentionSchema, type RetentionInput } from './schemas.ts';
import { connectedProviders } from '../providers/index.ts';
import { scansUsedThisMonth } from './usage.ts';

export async function createOrg(ctx: AppContext, input: { name: string; plan?: Plan; balanceMicros?: Micros }) {
  const { db } = ctx;
  const name = input.name.trim();
  if (!name) throw new BadRequestError('A workspace needs a name');
  const org = await db.insertInto('orgs').values({ name, plan: input.plan }).returningAll().executeTakeFirstOrThrow();
  const balance = input.balanceMicros
    ? (await topUp(ctx, { orgId: org.id, amountMicros: input.balanceMicros, description: 'Opening balance' }))
        .balanceMicros
    : 0;
  return {
    id: org.id,
    name: org.name,
    plan: org.plan,
    limits: limitsOf(org),
    balanceUsd: microsToUsd(balance),
    createdAt: org.createdAt,
  };
}

export async function findOrg(db: Db, orgId: number) {
  const org = await db.selectFrom('orgs').selectAll().where('id', '=', orgId).executeTakeFirst();
  if (!org) throw new NotFoundError(`No workspace with id ${orgId}`);
  return org;
}

/** The limits an operator may override (rewrites per day follow the plan only). */
export async function setOrgLimits(ctx: AppContext, orgId: number, limits: Partial<Omit<OrgLimits, 'rewritesPerDay'>>) {
  const { db } = ctx;
  const current = await findOrg(db, orgId);
  const changes = {
    ...(limits.sites !== undefined && { limitSites: limits.sites }),
    ...(limits.promptsPerSite !== undefined && { limitPromptsPerSite: limits.promptsPerSite }),
    ...(limits.scansPerMonth !== undefined && { limitScansPerMonth: limits.scansPerMonth }),
    ...(limits.members !== undefined && { limitMembers: limits.members }),
  };
  // With no limit given this just shows the limits in force.
  const org = Object.keys(changes).length
    ? await db.updateTable('orgs').set(changes).where('id', '=', orgId).returningAll().executeTakeFirstOrThrow()
    : current;
  return { id: org.id, plan: org.plan, limits: limitsOf(org) };
}

export async function setOrgBranding(
  ctx: AppContext,
  orgId: number,
  branding: { reportName?: string | null; reportLogo?: string | null },
) {
  const { db } = ctx;
  await findOrg(db, orgId);
  const org = await db
    .updateTable('orgs')
    .set({
      ...(branding.reportName !== undefined && { reportName: branding.reportName || null }),
      ...(branding.reportLogo !== undefined && { reportLogo: branding.reportLogo || null }),
    })
    .where('id', '=', orgId)
    .returning(['id', 'name', 'reportName', 'reportLogo'])
    .executeTakeFirstOrThrow();
  // Report branding defaults to the workspace name and no logo (CONTRACT.md "Sites").
  return { id: org.id, reportName: org.reportName ?? org.name, reportLogo: org.reportLogo };
}

/**
 * How many months of answers the workspace keeps before the current one
 * (null: everything, the default). Set by operators (`sightline org
 * retention`) like limits and branding; the nightly retention job applies it.
 */
export async function setOrgRetention(ctx: AppContext, orgId: number, input: RetentionInput) {
  const { db } = ctx;
  const { retentionMonths } = retentionSchema.parse(input);
  await findOrg(db, orgId);
  const org = await db
    .updateTable('orgs')
    .set({ retentionMonths })
    .where('id', '=', orgId)
    .returning(['id', 'retentionMonths'])
    .executeTakeFirstOrThrow();
  return { id: org.id, retentionMonths: org.retentionMonths };
}

/** What a key is: its kind and name, its creator, its workspace and the role it acts with. */
export function whoami(p: Principal) {
  return { kind: p.kind, tokenName: p.keyName, user: p.user, org: p.org, role: p.role };
}

export async function getOrg(ctx: AppContext, orgId: number, role: Role) {
  const org = await findOrg(ctx.db, orgId);
  const balance: Micros = org.balanceMicros;
  return {
    org: {
      id: org.id,
      name: org.name,
      plan: org.plan,
      role,
      reportName: org.reportName ?? org.name,
      reportLogo: org.reportLogo,
      retentionMonths: org.retentionMonths,
      connectedAssistants: connectedProviders(ctx.config),
      limits: limitsOf(org),
      scansUsedThisMonth: await scansUsedThisMonth(ctx, orgId),
      balanceUsd: microsToUsd(balance),
      balance: formatUsd(balance),
      createdAt: org.createdAt,
    },
  };
}
