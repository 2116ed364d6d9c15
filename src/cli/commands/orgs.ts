import { z } from 'zod';
import { microsToUsd, usdToMicros } from '../../money.ts';
import { PLANS, KEY_ROLES, PERSON_ROLES } from '../../domain/orgs/index.ts';
import { count, defineCommand, id, withContext } from '../command.ts';

/** Workspaces, people, keys and money: what the web app's signed-in screens do, for operators. */
export const orgCommands = [
  defineCommand({
    name: 'org create',
    usage: 'org create --name NAME [--plan free|starter|pro|enterprise] [--balance-usd N]',
    summary: 'Create a workspace, optionally with an opening balance',
    flags: {
      name: z.string().min(1),
      plan: z.enum(PLANS).optional(),
      'balance-usd': z.coerce.number().finite().min(0).optional(),
    },
    run: (a, config) =>
      withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).createOrg(ctx, {
          name: a.name,
          plan: a.plan,
          balanceMicros: usdToMicros(a['balance-usd'] ?? 0),
        }),
      ),
  }),
  defineCommand({
    name: 'org limits',
    usage: 'org limits --org ID [--sites N] [--prompts-per-site N] [--scans-per-month N] [--members N]',
    summary: "Override a workspace's plan limits",
    flags: {
      org: id,
      sites: count.optional(),
      'prompts-per-site': count.optional(),
      'scans-per-month': count.optional(),
      members: count.optional(),
    },
    run: (a, config) =>
      withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).setOrgLimits(ctx, a.org, {
          sites: a.sites,
          promptsPerSite: a['prompts-per-site'],
          scansPerMonth: a['scans-per-month'],
          members: a.members,
        }),
      ),
  }),
  defineCommand({
    name: 'org branding',
    usage: 'org branding --org ID [--report-name NAME] [--report-logo URL]',
    summary: 'Name and logo shown on shared reports',
    flags: { org: id, 'report-name': z.string().optional(), 'report-logo': z.url().or(z.literal('')).optional() },
    run: (a, config) =>
      withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).setOrgBranding(ctx, a.org, {
          reportName: a['report-name'],
          reportLogo: a['report-logo'],
        }),
      ),
  }),
  defineCommand({
    name: 'user create',
    usage: 'user create --email EMAIL --name NAME',
    summary: 'Create a person',
    flags: { email: z.email(), name: z.string().min(1) },
    run: (a, config) =>
      withContext(config, async (ctx) => (await import('../../domain/orgs/index.ts')).createUser(ctx, a)),
  }),
  defineCommand({
    name: 'member add',
    usage: 'member add --org ID --user ID --role owner|admin|member|viewer',
    summary: 'Add a person to a workspace with a role',
    flags: { org: id, user: id, role: z.enum(PERSON_ROLES) },
    run: (a, config) =>
      withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).addMember(ctx, {
          orgId: a.org,
          userId: a.user,
          role: a.role,
        }),
      ),
  }),
  defineCommand({
    name: 'member remove',
    usage: 'member remove --org ID --user ID',
    summary: 'Remove a person from a workspace; their keys stop at once',
    flags: { org: id, user: id },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        await (await import('../../domain/orgs/index.ts')).removeMemberAsOperator(ctx, a.org, a.user);
        return { orgId: a.org, userId: a.user, removed: true };
      }),
  }),
  defineCommand({
    name: 'key create',
    usage: 'key create --org ID --user ID --name NAME [--role viewer|member|admin]',
    summary: "Make an API key for a member (without --role: the member's own role, an owner's key is admin)",
    flags: { org: id, user: id, name: z.string().min(1).max(100), role: z.enum(KEY_ROLES).optional() },
    run: (a, config) =>
      withContext(config, async (ctx) =>
        (await import('../../domain/orgs/index.ts')).createApiKey(ctx, {
          orgId: a.org,
          userId: a.user,
          name: a.name,
          role: a.role,
        }),
      ),
  }),
  defineCommand({
    name: 'key revoke',
    usage: 'key revoke --id ID',
    summary: 'Revoke an API key for good',
    flags: { id },
    run: (a, config) =>
      withContext(config, async (ctx) => (await import('../../domain/orgs/index.ts')).revokeApiKey(ctx, a.id)),
  }),
  defineCommand({
    name: 'balance topup',
    usage: 'balance topup --org ID --usd N',
    summary: "Add money to a workspace's balance (one ledger entry)",
    flags: { org: id, usd: z.coerce.number().finite().positive() },
    run: (a, config) =>
      withContext(config, async (ctx) => {
        const { topUp } = await import('../../domain/orgs/index.ts');
        const { balanceMicros } = await topUp(ctx, {
          orgId: a.org,
          amountMicros: usdToMicros(a.usd),
          description: 'Operator top-up',
        });
        return { orgId: a.org, balanceUsd: microsToUsd(balanceMicros) };
      }),
  }),
];
