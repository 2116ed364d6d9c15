import { z } from 'zod';
import { count, dateTime, id, named, paging, provider, usd } from '../common/index.ts';

/** Response schemas of the workspace endpoints (see src/domain/common/responses.ts). */

export const plan = z.enum(['free', 'starter', 'pro', 'enterprise']);
export const role = z.enum(['owner', 'admin', 'member', 'viewer']);
const keyRole = z.enum(['admin', 'member', 'viewer']);

export const whoamiResponse = named(
  'Whoami',
  'The key: its name, the person who created it, its workspace and the role it acts with',
  z.object({
    kind: z.literal('token'),
    tokenName: z.string(),
    user: z.object({ id, name: z.string(), email: z.string() }),
    org: z.object({ id, name: z.string(), plan }),
    role: keyRole.describe('The lower of the key’s own role and its creator’s current role'),
  }),
);

export const limits = named(
  'WorkspaceLimits',
  'Workspace limits by plan, or as an operator set them',
  z.object({
    sites: count,
    promptsPerSite: count,
    scansPerMonth: count,
    members: count,
    rewritesPerDay: count.describe(
      'Imported queries rewritten into questions per UTC day, across the workspace’s sites (set by plan)',
    ),
  }),
);

export const orgResponse = named(
  'WorkspaceResponse',
  'The workspace',
  z.object({
    org: named(
      'Workspace',
      'A workspace: name, plan, the caller’s role, report branding, limits and balance',
      z.object({
        id,
        name: z.string(),
        plan,
        role,
        reportName: z.string(),
        reportLogo: z.string().nullable(),
        retentionMonths: z
          .number()
          .int()
          .min(1)
          .nullable()
          .describe(
            'Months of answers kept before the current one; older months are dropped nightly. null keeps everything (the default)',
          ),
        connectedAssistants: z.array(provider),
        limits,
        scansUsedThisMonth: count,
        balanceUsd: usd,
        balance: z.string().describe('The balance formatted, e.g. "$12.50"'),
        createdAt: dateTime,
      }),
    ),
  }),
);

const money = { usd, formatted: z.string() };

export const usageResponse = named(
  'Usage',
  'Balance, the latest top-ups, and costs: this month per site, the last six months, the price per answer of each assistant’s default model',
  z.object({
    balanceUsd: usd,
    balance: z.string(),
    topups: z.array(
      z.object({ id, amountUsd: usd, formatted: z.string(), description: z.string(), createdAt: dateTime }),
    ),
    costs: z.object({
      month: z.string().describe('YYYY-MM'),
      thisMonthUsd: usd,
      formatted: z.string(),
      sites: z.array(
        z.object({
          siteId: id,
          name: z.string(),
          domain: z.string(),
          spendThisMonthUsd: usd,
          monthlyCapUsd: usd.nullable(),
          capSpent: z.boolean(),
        }),
      ),
      lastSixMonths: z.array(z.object({ month: z.string().describe('YYYY-MM'), costUsd: usd, formatted: z.string() })),
      pricePerAnswer: z.array(
        z.object({ provider, model: z.string(), priceUsd: money.usd, formatted: money.formatted }),
      ),
    }),
  }),
);

export const invitation = named(
  'Invitation',
  'A pending invitation (its seat counts toward the member limit)',
  z.object({
    id,
    email: z.string(),
    role: keyRole,
    status: z.enum(['pending', 'accepted', 'cancelled']),
    createdAt: dateTime,
    pending: z.boolean(),
  }),
);

export const memberList = named(
  'MemberList',
  'Members a page at a time (total counts them all), every pending invitation, and the member limit with the seats used (members plus pending invitations)',
  z.object({
    members: z.array(
      named(
        'Member',
        'A member of the workspace',
        z.object({ userId: id, name: z.string(), email: z.string(), role, joinedAt: dateTime, pending: z.boolean() }),
      ),
    ),
    invitations: z.array(invitation),
    ...paging,
    limit: z.object({ members: count, used: count }),
  }),
);

export const invitationResponse = named('InvitationResponse', 'The invitation made', z.object({ invitation }));

export const memberRoleResponse = named(
  'MemberRoleResponse',
  'The member’s new role',
  z.object({ member: z.object({ userId: id, role }) }),
);
