import type { AppContext } from '../../context.ts';
import type { ShareLinkRow, SiteRow } from '../../db/schema.ts';
import { BadRequestError, NotFoundError } from '../../errors.ts';
import { lockSite } from '../common/index.ts';
import type { ShareCreate, ShareListQuery } from './schemas.ts';
import { generateShareToken, hashShareToken, SHARE_PREFIX_LENGTH } from './share-tokens.ts';

/** Share links of a site (variant A): create, list, revoke. Only admins reach these (the routes say so). */

/** Active links per site: plenty for every audience, and a bound on what one site hands out. */
export const ACTIVE_SHARES_PER_SITE = 100;

type ShareRow = Pick<ShareLinkRow, 'id' | 'label' | 'tokenPrefix' | 'createdBy' | 'createdAt' | 'revokedAt'> & {
  creatorName?: string | null;
};

function serializeShare(row: ShareRow) {
  return {
    id: row.id,
    label: row.label,
    prefix: row.tokenPrefix,
    state: row.revokedAt ? ('revoked' as const) : ('active' as const),
    createdBy: row.createdBy === null ? null : { id: row.createdBy, name: row.creatorName ?? null },
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

/** The public address of a token's page. */
export function shareUrl(ctx: AppContext, token: string): string {
  return `${ctx.config.publicBaseUrl.replace(/\/+$/, '')}/share/${token}`;
}

/** The site's links, newest first, revoked ones included (marked so), a page at a time; URLs are not kept, so none is listed. */
export async function listShares(ctx: AppContext, site: SiteRow, query: ShareListQuery) {
  const [counts, rows] = await Promise.all([
    ctx.db
      .selectFrom('shareLinks')
      .select((eb) => [
        eb.fn.countAll<number>().as('total'),
        eb.fn.count<number>('id').filterWhere('revokedAt', 'is', null).as('active'),
      ])
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
    ctx.db
      .selectFrom('shareLinks as l')
      .leftJoin('users as u', 'u.id', 'l.createdBy')
      .select([
        'l.id',
        'l.label',
        'l.tokenPrefix',
        'l.createdBy',
        'l.createdAt',
        'l.revokedAt',
        'u.name as creatorName',
      ])
      .where('l.siteId', '=', site.id)
      .orderBy('l.id', 'desc')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return {
    shares: rows.map(serializeShare),
    total: Number(counts.total),
    active: Number(counts.active),
    page: query.page,
    perPage: query.perPage,
  };
}

/** A new link; its URL is in this answer only (the token is stored hashed). */
export async function createShare(ctx: AppContext, site: SiteRow, userId: number, input: ShareCreate) {
  return ctx.db.transaction().execute(async (trx) => {
    // Serialised per site, so two creates at once cannot both pass the limit.
    await lockSite(trx, site.id);
    const active = await trx
      .selectFrom('shareLinks')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .where('revokedAt', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(active.n) >= ACTIVE_SHARES_PER_SITE) {
      throw new BadRequestError(
        `This project has ${ACTIVE_SHARES_PER_SITE} active share links, the most it can have; revoke some first`,
      );
    }
    const token = generateShareToken();
    const row = await trx
      .insertInto('shareLinks')
      .values({
        siteId: site.id,
        tokenHash: hashShareToken(token),
        tokenPrefix: token.slice(0, SHARE_PREFIX_LENGTH),
        label: input.label,
        createdBy: userId,
      })
      .returning(['id', 'label', 'tokenPrefix', 'createdBy', 'createdAt', 'revokedAt'])
      .executeTakeFirstOrThrow();
    const creator = await trx.selectFrom('users').select('name').where('id', '=', userId).executeTakeFirst();
    const url = shareUrl(ctx, token);
    return { share: { ...serializeShare({ ...row, creatorName: creator?.name ?? null }), url }, url };
  });
}

/** Revokes for good; revoking a revoked link answers it unchanged. */
export async function revokeShare(ctx: AppContext, site: SiteRow, shareId: number) {
  const at = ctx.clock.now();
  await ctx.db
    .updateTable('shareLinks')
    .set({ revokedAt: at })
    .where('id', '=', shareId)
    .where('siteId', '=', site.id)
    .where('revokedAt', 'is', null)
    .execute();
  const row = await ctx.db
    .selectFrom('shareLinks as l')
    .leftJoin('users as u', 'u.id', 'l.createdBy')
    .select(['l.id', 'l.label', 'l.tokenPrefix', 'l.createdBy', 'l.createdAt', 'l.revokedAt', 'u.name as creatorName'])
    .where('l.id', '=', shareId)
    .where('l.siteId', '=', site.id)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No share link with id ${shareId}`);
  return { revoked: true, share: serializeShare(row) };
}
