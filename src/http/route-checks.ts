import type { AppContext } from '../context.ts';
import type { SiteRow } from '../db/schema.ts';
import { findSite } from '../domain/sites/index.ts';
import type { Principal } from '../domain/orgs/index.ts';
import { atLeast } from '../domain/orgs/index.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../errors.ts';
import { isSitePath, type Route } from './route.ts';

/**
 * The checks a keyed route makes once the key is known, shared by HTTP
 * (server.ts) and the MCP tools (src/mcp), so a tool can never reach what
 * its route would refuse.
 */

/**
 * `:orgId` must be the key's workspace and `/projects/:id` one of its sites
 * (anything else is a 404, the same as a nonexistent id); then the key's role
 * must reach the route's lowest role (403). Answers the site of a
 * `/projects/:id` route.
 */
export async function authorize(
  ctx: AppContext,
  route: Route,
  principal: Principal,
  ids: Record<string, number>,
): Promise<SiteRow | null> {
  checkOrg(principal, ids);
  const site = needsSite(route, ids) ? await findSite(ctx.db, principal.org.id, ids.id!) : null;
  checkRole(route, principal);
  return site;
}

/** Whether authorize looks up a site (a `/projects/:id` route): the server skips the promise otherwise, with the same checks in the same order. */
export function needsSite(route: Route, ids: Record<string, number>): boolean {
  return ids.id !== undefined && isSitePath(route.path);
}

/** `:orgId` must be the key's workspace (404 otherwise). */
export function checkOrg(principal: Principal, ids: Record<string, number>): void {
  if (ids.orgId !== undefined && ids.orgId !== principal.org.id)
    throw new NotFoundError(`No workspace with id ${ids.orgId}`);
}

/** The key's role must reach the route's lowest role (403). */
export function checkRole(route: Route, principal: Principal): void {
  const needed = route.access as 'viewer' | 'member' | 'admin';
  if (!atLeast(principal.role, needed)) {
    throw new ForbiddenError(`This needs a key with ${needed} access or higher; this key has ${principal.role} access`);
  }
}

/** CONTRACT.md "Variants": a field of a variant the deployment does not serve is invalid like any other. */
export function refuseUnservedFields(route: Route, body: unknown, served: string): void {
  if (!route.variantFields || typeof body !== 'object' || body === null) return;
  const fields: Record<string, string> = {};
  for (const [field, variant] of Object.entries(route.variantFields)) {
    if (variant && !served.includes(variant) && (body as Record<string, unknown>)[field] !== undefined)
      fields[field] = `${field} is not available on this deployment`;
  }
  if (Object.keys(fields).length) throw new ValidationError(fields);
}
