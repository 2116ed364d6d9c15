import type { AppContext } from '../../context.ts';
import { WEBHOOKS_PER_PAGE, type WebhookListQuery } from './schemas.ts';
import type { Executor } from '../../db/database.ts';
import type { WebhookRow } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, ValidationError } from '../../errors.ts';
import { failPending } from './deliver.ts';
import type { EventType } from './event-types.ts';
import type { WebhookCreate, WebhookUpdate } from './schemas.ts';
import { generateSecret } from './signing.ts';
import { checkWebhookUrl } from './url.ts';

/**
 * A workspace's webhooks: create, list, read, change, delete, rotate the
 * secret. Only admin keys reach these (the routes say so), reads included:
 * a webhook's address and what it receives are the workspace's business.
 */

/** How long the previous secret still signs deliveries after a rotation. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

export function serializeWebhook(w: WebhookRow) {
  return {
    id: w.id,
    url: w.url,
    events: w.events as (EventType | '*')[],
    projectIds: w.siteIds,
    format: w.format,
    description: w.description,
    enabled: w.enabled,
    disabledReason: w.disabledReason,
    failures: w.consecutiveFailures,
    failingSince: w.failingSince,
    previousSecretExpiresAt: w.previousSecret ? w.previousSecretExpiresAt : null,
    createdAt: w.createdAt,
    updatedAt: w.updatedAt,
  };
}

/** Whether the webhook receives events of this type (its list, or "*"). */
export const receives = (w: Pick<WebhookRow, 'events'>, type: EventType) =>
  w.events.includes('*') || w.events.includes(type);

export async function findWebhook(db: Executor, orgId: number, webhookId: number): Promise<WebhookRow> {
  const row = await db
    .selectFrom('webhooks')
    .selectAll()
    .where('id', '=', webhookId)
    .where('orgId', '=', orgId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No webhook with id ${webhookId}`);
  return row;
}

/** Every id of `projectIds` must be a site of the workspace. */
async function checkSites(db: Executor, orgId: number, ids: number[] | null): Promise<void> {
  if (!ids || ids.length === 0) return;
  const found = await db.selectFrom('sites').select('id').where('orgId', '=', orgId).where('id', 'in', ids).execute();
  const known = new Set(found.map((s) => s.id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length)
    throw new ValidationError({ projectIds: `no project with id ${missing.slice(0, 5).join(', ')} in this workspace` });
}

/** Oldest first; the first page holds every webhook a workspace may have by default. */
export async function listWebhooks(
  ctx: AppContext,
  orgId: number,
  query: WebhookListQuery = { page: 1, perPage: WEBHOOKS_PER_PAGE },
) {
  const [rows, total] = await Promise.all([
    ctx.db
      .selectFrom('webhooks')
      .selectAll()
      .where('orgId', '=', orgId)
      .orderBy('id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
    ctx.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('orgId', '=', orgId)
      .executeTakeFirstOrThrow(),
  ]);
  return {
    webhooks: rows.map(serializeWebhook),
    total: Number(total.n),
    page: query.page,
    perPage: query.perPage,
    limit: ctx.config.webhooks.perOrg,
  };
}

export async function getWebhook(ctx: AppContext, orgId: number, webhookId: number) {
  return { webhook: serializeWebhook(await findWebhook(ctx.db, orgId, webhookId)) };
}

/** `actor.userId` is null for the operator CLI. */
export async function createWebhook(
  ctx: AppContext,
  actor: { orgId: number; userId: number | null },
  input: WebhookCreate,
) {
  const url = await checkWebhookUrl(ctx, input.url);
  return ctx.db.transaction().execute(async (trx) => {
    // Serialised per workspace, so two creates at once cannot both pass the limit.
    await trx.selectFrom('orgs').select('id').where('id', '=', actor.orgId).forUpdate().executeTakeFirstOrThrow();
    const n = await trx
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', actor.orgId)
      .executeTakeFirstOrThrow();
    const limit = ctx.config.webhooks.perOrg;
    if (Number(n.n) >= limit)
      throw new BadRequestError(`This workspace has ${limit} webhooks, the most it can have; delete one first`);
    await checkSites(trx, actor.orgId, input.projectIds);
    const secret = generateSecret();
    const row = await trx
      .insertInto('webhooks')
      .values({
        orgId: actor.orgId,
        url,
        events: input.events,
        siteIds: input.projectIds,
        format: input.format,
        description: input.description,
        secret,
        createdBy: actor.userId,
        createdAt: ctx.clock.now(),
        updatedAt: ctx.clock.now(),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { webhook: { ...serializeWebhook(row), secret } };
  });
}

export async function updateWebhook(ctx: AppContext, orgId: number, webhookId: number, input: WebhookUpdate) {
  const current = await findWebhook(ctx.db, orgId, webhookId);
  const url = input.url !== undefined && input.url !== current.url ? await checkWebhookUrl(ctx, input.url) : undefined;
  const now = ctx.clock.now();
  return ctx.db.transaction().execute(async (trx) => {
    if (input.projectIds !== undefined) await checkSites(trx, orgId, input.projectIds);
    const reenable = input.enabled === true && !current.enabled;
    const row = await trx
      .updateTable('webhooks')
      .set({
        ...(url !== undefined && { url }),
        ...(input.events !== undefined && { events: input.events }),
        ...(input.projectIds !== undefined && { siteIds: input.projectIds }),
        ...(input.format !== undefined && { format: input.format }),
        ...(input.description !== undefined && { description: input.description }),
        ...(input.enabled === false && current.enabled && { enabled: false, disabledReason: 'disabled by a person' }),
        // Enabled again: its run of failures starts over.
        ...(reenable && { enabled: true, disabledReason: null, consecutiveFailures: 0, failingSince: null }),
        updatedAt: now,
      })
      .where('id', '=', webhookId)
      .where('orgId', '=', orgId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw new NotFoundError(`No webhook with id ${webhookId}`);
    if (input.enabled === false && current.enabled) await failPending(trx, webhookId, 'disabled by a person');
    return { webhook: serializeWebhook(row) };
  });
}

export async function deleteWebhook(ctx: AppContext, orgId: number, webhookId: number) {
  const row = await ctx.db
    .deleteFrom('webhooks')
    .where('id', '=', webhookId)
    .where('orgId', '=', orgId)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No webhook with id ${webhookId}`);
  return { deleted: true, webhook: serializeWebhook(row) };
}

/** A new secret; the current one becomes the previous one and still signs for 24 hours (both signatures are sent). */
export async function rotateSecret(ctx: AppContext, orgId: number, webhookId: number) {
  const now = ctx.clock.now();
  const secret = generateSecret();
  const row = await ctx.db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('webhooks')
      .select('secret')
      .where('id', '=', webhookId)
      .where('orgId', '=', orgId)
      .forUpdate()
      .executeTakeFirst();
    if (!current) throw new NotFoundError(`No webhook with id ${webhookId}`);
    return trx
      .updateTable('webhooks')
      .set({
        secret,
        previousSecret: current.secret,
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_MS),
        updatedAt: now,
      })
      .where('id', '=', webhookId)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return { webhook: { ...serializeWebhook(row), secret } };
}
