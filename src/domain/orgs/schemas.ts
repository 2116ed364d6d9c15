import { z } from 'zod';
import { pagingShape } from '../common/index.ts';

/** Request schemas of the workspace: invitations, roles and the member list. */

export const keyRole = z.enum(['viewer', 'member', 'admin'], { error: 'must be viewer, member or admin' });

export const invitationSchema = z.object({
  email: z.email({ error: 'must be an email address' }).trim().max(320),
  role: keyRole.default('member'),
});

export const roleChangeSchema = z.object({ role: keyRole });

/** Retention (domain/facts/retention.ts): months of answers kept before the current one; null keeps everything. */
export const retentionMonths = z.number().int().min(1).max(1200).nullable();
export const retentionSchema = z.object({ retentionMonths });

export type RetentionInput = z.input<typeof retentionSchema>;
export type InvitationInput = z.output<typeof invitationSchema>;

/** The first page holds every seat the largest plan has. */
export const MEMBER_PAGE_DEFAULT = 200;
export const memberListQuerySchema = z.object(pagingShape(MEMBER_PAGE_DEFAULT));
export type MemberListQuery = z.output<typeof memberListQuerySchema>;
