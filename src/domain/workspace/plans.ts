import type { OrgRow, Plan } from '../../db/schema.ts';

export interface WorkspaceLimits {
  sites: number;
  promptsPerSite: number;
  scansPerMonth: number;
  members: number;
}

/** CONTRACT.md "Workspace limits by plan"; operators override per workspace. */
export const PLAN_LIMITS: Record<Plan, WorkspaceLimits> = {
  free: { sites: 1, promptsPerSite: 25, scansPerMonth: 30, members: 2 },
  starter: { sites: 3, promptsPerSite: 150, scansPerMonth: 300, members: 5 },
  pro: { sites: 10, promptsPerSite: 500, scansPerMonth: 3000, members: 20 },
  enterprise: { sites: 100, promptsPerSite: 5000, scansPerMonth: 100000, members: 200 },
};

export const PLANS = Object.keys(PLAN_LIMITS) as Plan[];

export function limitsOf(org: Pick<OrgRow, 'plan' | 'limitSites' | 'limitPromptsPerSite' | 'limitScansPerMonth' | 'limitMembers'>): WorkspaceLimits {
  const plan = PLAN_LIMITS[org.plan];
  return {
    sites: org.limitSites ?? plan.sites,
    promptsPerSite: org.limitPromptsPerSite ?? plan.promptsPerSite,
    scansPerMonth: org.limitScansPerMonth ?? plan.scansPerMonth,
    members: org.limitMembers ?? plan.members,
  };
}
