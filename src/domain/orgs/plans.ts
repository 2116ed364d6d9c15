import type { OrgRow, Plan } from '../../db/schema.ts';

export interface OrgLimits {
  sites: number;
  promptsPerSite: number;
  scansPerMonth: number;
  members: number;
  /**
   * Imported queries rewritten into questions per UTC day, across the
   * workspace's sites: each is one ChatGPT call the workspace is not charged
   * for (prompts/rewrite-allowance.ts). Four times the prompts a site may
   * hold, so a full site's import can be rewritten several times a day, yet
   * import, rewrite and delete cannot turn into unbounded free model calls.
   * Set by plan only (no operator override).
   */
  rewritesPerDay: number;
}

/** CONTRACT.md "Workspace limits by plan" (rewritesPerDay is ours); operators override the first four per workspace. */
export const PLAN_LIMITS: Record<Plan, OrgLimits> = {
  free: { sites: 1, promptsPerSite: 25, scansPerMonth: 30, members: 2, rewritesPerDay: 100 },
  starter: { sites: 3, promptsPerSite: 150, scansPerMonth: 300, members: 5, rewritesPerDay: 600 },
  pro: { sites: 10, promptsPerSite: 500, scansPerMonth: 3000, members: 20, rewritesPerDay: 2_000 },
  enterprise: { sites: 100, promptsPerSite: 5000, scansPerMonth: 100000, members: 200, rewritesPerDay: 20_000 },
};

export const PLANS = Object.keys(PLAN_LIMITS) as Plan[];

export function limitsOf(
  org: Pick<OrgRow, 'plan' | 'limitSites' | 'limitPromptsPerSite' | 'limitScansPerMonth' | 'limitMembers'>,
): OrgLimits {
  const plan = PLAN_LIMITS[org.plan];
  return {
    sites: org.limitSites ?? plan.sites,
    promptsPerSite: org.limitPromptsPerSite ?? plan.promptsPerSite,
    scansPerMonth: org.limitScansPerMonth ?? plan.scansPerMonth,
    members: org.limitMembers ?? plan.members,
    rewritesPerDay: plan.rewritesPerDay,
  };
}
