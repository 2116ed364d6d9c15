import { usage } from '../../domain/workspace/billing.ts';
import { cancelInvitation, inviteMember } from '../../domain/workspace/invitations.ts';
import { changeMemberRole, listMembers, removeMember } from '../../domain/workspace/members.ts';
import { dashboard, whoami, workspace } from '../../domain/workspace/orgs.ts';
import { invitationSchema, MEMBER_PAGE_DEFAULT, memberListQuerySchema, roleChangeSchema } from '../../domain/workspace/schemas.ts';
import { defineRoute, json, noContent, type Route } from '../route.ts';
import { dashboardResponse, invitationResponse, memberList, memberRoleResponse, usageResponse, whoamiResponse, workspaceResponse } from '../../domain/workspace/responses.ts';

/** The key's workspace: who it is, members, invitations, usage (src/domain/workspace). */
export const workspaceRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/whoami',
    operationId: 'whoami',
    tag: 'Workspace',
    mcp: { tool: 'whoami', lead: 'Who this key is: its workspace (org.id) and role. Call first.' },
    summary: 'The key, its creator, its workspace and its role',
    access: 'viewer',
    responses: { 200: whoamiResponse },
    handler: ({ principal }) => json(whoami(principal)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId',
    operationId: 'getWorkspace',
    tag: 'Workspace',
    mcp: { tool: 'get_workspace' },
    summary: 'Workspace: name, plan, the caller’s role, limits, balance',
    access: 'viewer',
    responses: { 200: workspaceResponse },
    handler: async ({ ctx, principal }) => json(await workspace(ctx, principal.org.id, principal.role)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/dashboard',
    operationId: 'getDashboard',
    tag: 'Workspace',
    mcp: { tool: 'get_dashboard' },
    summary: 'Every site with current numbers, connected assistants, limits and scans used this month',
    access: 'viewer',
    responses: { 200: dashboardResponse },
    handler: async ({ ctx, principal }) => json(await dashboard(ctx, principal.org.id, principal.role)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/usage',
    operationId: 'getUsage',
    tag: 'Workspace',
    mcp: { tool: 'get_usage' },
    summary: 'Balance, top-ups and scan costs',
    access: 'viewer',
    responses: { 200: usageResponse },
    handler: async ({ ctx, principal }) => json(await usage(ctx, principal.org.id)),
  }),
  defineRoute({
    method: 'GET',
    path: '/orgs/:orgId/members',
    operationId: 'listMembers',
    tag: 'Workspace',
    mcp: { tool: 'list_members' },
    summary: `Members (page, perPage: 5 to 200, default ${MEMBER_PAGE_DEFAULT}), every pending invitation and the member limit`,
    access: 'viewer',
    query: memberListQuerySchema,
    responses: { 200: memberList },
    handler: async ({ ctx, principal, query }) => json(await listMembers(ctx, principal.org.id, query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/orgs/:orgId/invitations',
    operationId: 'inviteMember',
    tag: 'Workspace',
    summary: 'Invite a person by email (20 an hour per workspace)',
    access: 'admin',
    body: invitationSchema,
    example: { email: 'sam@acme.com', role: 'member' },
    responses: {
      200: invitationResponse,
      400: 'The member limit is reached (pending invitations count)',
      409: 'Already a member, or already invited',
      429: 'More than 20 invitations this hour',
    },
    handler: async ({ ctx, principal, body }) => json(await inviteMember(ctx, { orgId: principal.org.id, userId: principal.user.id }, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/orgs/:orgId/invitations/:invitationId',
    operationId: 'cancelInvitation',
    tag: 'Workspace',
    summary: 'Cancel a pending invitation',
    access: 'admin',
    responses: { 204: { description: 'Cancelled' } },
    handler: async ({ ctx, principal, ids }) => {
      await cancelInvitation(ctx, principal.org.id, ids.invitationId);
      return noContent();
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/orgs/:orgId/members/:userId',
    operationId: 'changeMemberRole',
    tag: 'Workspace',
    summary: 'Change a member’s role (never the owner’s)',
    access: 'admin',
    body: roleChangeSchema,
    example: { role: 'viewer' },
    responses: { 200: memberRoleResponse, 403: 'The key’s access is below admin, or the member is the owner' },
    handler: async ({ ctx, principal, ids, body }) => json(await changeMemberRole(ctx, { orgId: principal.org.id, userId: principal.user.id }, ids.userId, body)),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/orgs/:orgId/members/:userId',
    operationId: 'removeMember',
    tag: 'Workspace',
    summary: 'Remove a member (never the owner); their keys stop at once',
    access: 'admin',
    responses: { 204: { description: 'Removed' }, 403: 'The key’s access is below admin, the member is the owner, or the key’s own creator (leaving needs a signed-in person)' },
    handler: async ({ ctx, principal, ids }) => {
      await removeMember(ctx, { orgId: principal.org.id, userId: principal.user.id }, ids.userId);
      return noContent();
    },
  }),
];
