import type { AppContext } from '../../context.ts';
import { preparedQuery } from '../../db/database.ts';
import type { KeyRole, Plan, Role } from '../../db/schema.ts';
import { UnauthorizedError } from '../../errors.ts';
import { hashKey, isWellFormedKey } from './api-keys.ts';
import { cacheOf, KEY_CACHE_TTL_MS, KEY_REFUSAL_TTL_MS, refusalsOf } from './key-cache.ts';
import { effectiveKeyRole } from './roles.ts';

/** Who is calling: always an API key here; persons sign in through the web app only. */
export interface Principal {
  kind: 'token';
  keyId: number;
  keyName: string;
  role: KeyRole;
  user: { id: number; name: string; email: string };
  org: { id: number; name: string; plan: Plan };
}

const LAST_USE_REFRESH_MS = 5 * 60 * 1000;

interface KeyRow {
  keyId: number;
  keyName: string;
  keyRole: KeyRole;
  revokedAt: Date | null;
  lastUsedAt: Date | null;
  creatorRole: Role | null;
  userId: number;
  userName: string;
  userEmail: string;
  orgId: number;
  orgName: string;
  orgPlan: Plan;
}

// Hand-written because it runs on every request as a prepared statement
// (planning this join each time cost most of a request); columns mirror schema.ts.
const KEY_LOOKUP_SQL = `
  SELECT k.id AS "keyId", k.name AS "keyName", k.role AS "keyRole", k.revoked_at AS "revokedAt",
         k.last_used_at AS "lastUsedAt", m.role AS "creatorRole",
         u.id AS "userId", u.name AS "userName", u.email AS "userEmail",
         o.id AS "orgId", o.name AS "orgName", o.plan AS "orgPlan"
    FROM api_keys k
    JOIN users u ON u.id = k.created_by
    JOIN orgs o ON o.id = k.org_id
    LEFT JOIN memberships m ON m.org_id = k.org_id AND m.user_id = k.created_by
   WHERE k.key_hash = $1`;

async function touchLastUse(ctx: AppContext, keyId: number, now: Date): Promise<void> {
  // Conditional, so concurrent requests and processes write it once per window.
  await ctx.db
    .updateTable('apiKeys')
    .set({ lastUsedAt: now })
    .where('id', '=', keyId)
    .where((eb) =>
      eb.or([eb('lastUsedAt', 'is', null), eb('lastUsedAt', '<=', new Date(now.getTime() - LAST_USE_REFRESH_MS))]),
    )
    .execute();
}

const due = (lastUsedAt: Date | null, now: Date) =>
  !lastUsedAt || now.getTime() - lastUsedAt.getTime() >= LAST_USE_REFRESH_MS;

/**
 * Resolves a bearer key to its principal. Look-ups are cached per process
 * for KEY_CACHE_TTL_MS and dropped sooner when a change is announced
 * (key-changes.ts), so a revocation, a lowered creator or a creator who left
 * takes effect within a second everywhere, at no Redis round trip per request.
 * Refusals of well-formed keys are remembered for KEY_REFUSAL_TTL_MS (a
 * bounded map), so unknown keys cannot make every request a database query.
 */
/**
 * The principal of a key whose look-up is cached and whose last use needs no
 * write, without a promise (the server's path for most requests); undefined
 * when authenticateKey has something to wait for or to refuse.
 */
export function cachedPrincipal(ctx: AppContext, key: string | null, now: Date): Principal | undefined {
  if (!key) return undefined;
  const cached = cacheOf(ctx).get(key);
  return cached && cached.expires > performance.now() && !due(cached.lastUsedAt, now) ? cached.principal : undefined;
}

export async function authenticateKey(ctx: AppContext, key: string | null, now: Date): Promise<Principal> {
  if (!key) throw new UnauthorizedError();
  const cache = cacheOf(ctx);
  // Only well-formed keys are ever stored.
  const cached = cache.get(key);
  const started = performance.now();
  if (cached && cached.expires > started) {
    if (due(cached.lastUsedAt, now)) {
      await touchLastUse(ctx, cached.principal.keyId, now);
      cached.lastUsedAt = now;
    }
    return cached.principal;
  }
  if (!isWellFormedKey(key)) throw new UnauthorizedError();
  // Refused a moment ago: refused again without a query (key-cache.ts KEY_REFUSAL_TTL_MS).
  const refused = refusalsOf(ctx);
  const refusal = refused.get(key);
  if (refusal && refusal.expires > started) throw new UnauthorizedError();

  const [row] = await preparedQuery<KeyRow>(ctx.db, 'auth-key-lookup', KEY_LOOKUP_SQL, [hashKey(key)]);
  if (!row || row.revokedAt || !row.creatorRole) {
    cache.delete(key);
    refused.set(key, { expires: started + KEY_REFUSAL_TTL_MS }, performance.now());
    throw new UnauthorizedError();
  }
  if (refusal) refused.delete(key);
  let lastUsedAt = row.lastUsedAt;
  if (due(lastUsedAt, now)) {
    await touchLastUse(ctx, row.keyId, now);
    lastUsedAt = now;
  }
  const principal: Principal = {
    kind: 'token',
    keyId: row.keyId,
    keyName: row.keyName,
    role: effectiveKeyRole(row.keyRole, row.creatorRole),
    user: { id: row.userId, name: row.userName, email: row.userEmail },
    org: { id: row.orgId, name: row.orgName, plan: row.orgPlan },
  };
  // The TTL counts from before the query: an entry is never trusted past a second after the row was read.
  cache.set(key, { expires: started + KEY_CACHE_TTL_MS, principal, lastUsedAt }, performance.now());
  return principal;
}
