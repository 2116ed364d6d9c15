import { z } from 'zod';
import { usage } from '../../domain/workspace/billing.ts';
import { cancelInvitation, inviteMember } from '../../domain/workspace/invitations.ts';
import { changeMemberRole, listMembers, removeMember } from '../../domain/workspace/members.ts';
import { dashboard, workspace } from '../../domain/workspace/orgs.ts';
import { listProviders } from '../../domain/providers/providers.ts';
import { createSite, listSites } from '../../domain/sites/sites.ts';
import { defineRoute, json, noContent, type Route } from '../route.ts';
import { keyRole, trimmed } from '../schemas.ts';

const createSiteBody = z.object({
  name: trimmed('name', 200),
  url: z.string({ error: 'url is required: the site address, such as acme.com' }).trim().min(1, 'url is required').max(2000),
  industry: trimmed('industry', 200).nullish(),
  brandTerms: z.array(trimmed('a brand term', 100)).max(50, 'at most 50 brand terms').optional(),
  competitors: z
    .array(z.object({ name: trimmed('competitor name', 200), domain: z.string().trim().max(2000).nullish() }))
    .max(50, 'at most 50 competitors')
    .optional(),
  language: trimmed('language', 100).optional(),
  location: trimmed('location', 100).optional(),
});

const inviteBody = z.object({
  email: z.email({ error: 'must be an email address' }).trim().max(320),
  role: keyRole.default('member'),
});

const roleBody = z.object({ role: keyRole });

export const workspaceRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/whoami',
    summary: 'The key, its creator, its workspace and its role',
    access: 'viewer',
    handler: ({ principal: p }) => json({ kind: p.kind, tokenName: p.keyName, user: p.user, org: p.org, role: p.role }),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId',
    summary: 'Workspace: name, plan, the caller’s role, limits, balance',
    access: 'viewer',
    handler: async ({ ctx, principal }) => json(await workspace(ctx, principal.org.id, principal.role)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/dashboard',
    summary: 'Every site with current numbers, connected assistants, limits and scans used this month',
    access: 'viewer',
    handler: async ({ ctx, principal }) => json(await dashboard(ctx, principal.org.id, principal.role)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/projects',
    summary: 'The workspace’s sites',
    access: 'viewer',
    handler: async ({ ctx, principal }) => {
      const projects = await listSites(ctx.db, principal.org.id);
      return json({ projects, total: projects.length });
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/projects',
    summary: 'Add a site',
    access: 'admin',
    body: createSiteBody,
    example: { name: 'Acme', url: 'https://www.acme.com/', brandTerms: ['Acme Cloud'], competitors: [{ name: 'Globex', domain: 'globex.com' }] },
    handler: async ({ ctx, principal, body }) => json({ project: await createSite(ctx, { orgId: principal.org.id, userId: principal.user.id }, body) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/usage',
    summary: 'Balance, top-ups and scan costs',
    access: 'viewer',
    handler: async ({ ctx, principal }) => json(await usage(ctx, principal.org.id)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/providers',
    summary: 'The six assistants, their models and prices, connected or not',
    access: 'viewer',
    handler: ({ ctx }) => json(listProviders(ctx.config)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/members',
    summary: 'Members, pending invitations and the member limit',
    access: 'viewer',
    handler: async ({ ctx, principal }) => json(await listMembers(ctx.db, principal.org.id)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/invitations',
    summary: 'Invite a person by email (20 an hour per workspace)',
    access: 'admin',
    body: inviteBody,
    example: { email: 'sam@acme.com', role: 'member' },
    handler: async ({ ctx, principal, body }) => json(await inviteMember(ctx, { orgId: principal.org.id, userId: principal.user.id }, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/orgs/:orgId/invitations/:invitationId',
    summary: 'Cancel a pending invitation',
    access: 'admin',
    responds: 'no content',
    handler: async ({ ctx, principal, ids }) => {
      await cancelInvitation(ctx, principal.org.id, ids.invitationId as number);
      return noContent();
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/orgs/:orgId/members/:userId',
    summary: 'Change a member’s role (never the owner’s)',
    access: 'admin',
    body: roleBody,
    example: { role: 'viewer' },
    handler: async ({ ctx, principal, ids, body }) =>
      json(await changeMemberRole(ctx, { orgId: principal.org.id, userId: principal.user.id }, ids.userId as number, body.role)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/orgs/:orgId/members/:userId',
    summary: 'Remove a member (never the owner); their keys stop at once',
    access: 'admin',
    responds: 'no content',
    handler: async ({ ctx, principal, ids }) => {
      await removeMember(ctx, { orgId: principal.org.id, userId: principal.user.id }, ids.userId as number);
      return noContent();
    },
  }),
];
