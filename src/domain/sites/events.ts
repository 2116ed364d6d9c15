import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import type { SiteEventRow, SiteEventType, SiteRow } from '../../db/schema.ts';
import { BadRequestError, NotFoundError, ValidationError } from '../../errors.ts';
import { isoDateSchema, lockSite, text, pagingShape } from '../common/index.ts';

/**
 * Site events (variant B): dated annotations a team adds (a release, a
 * campaign, a model update) that trend charts draw. Stored, not sent
 * anywhere (spec "Events").
 */

export const SITE_EVENT_TYPES = ['site', 'model', 'campaign', 'other'] as const satisfies readonly SiteEventType[];
export const SITE_EVENT_TITLE_MAX = 120;
export const SITE_EVENT_NOTE_MAX = 1000;
/** Events per site: plenty for years of releases and campaigns, and a bound on what one chart draws. */
export const SITE_EVENTS_MAX = 1000;

export const siteEventCreateSchema = z.object({
  title: text('title', SITE_EVENT_TITLE_MAX),
  date: isoDateSchema('date'),
  type: z.enum(SITE_EVENT_TYPES, { error: `type must be one of ${SITE_EVENT_TYPES.join(', ')}` }),
  // An empty or blank note is no note.
  note: text('note', SITE_EVENT_NOTE_MAX, 0)
    .nullable()
    .optional()
    .transform((v) => (v ? v : null)),
});

const empty = (v: unknown) => (v === '' ? undefined : v);
export const siteEventListQuerySchema = z.object({
  from: z.preprocess(empty, isoDateSchema('from').optional()),
  to: z.preprocess(empty, isoDateSchema('to').optional()),
  ...pagingShape(50),
});

export type SiteEventCreate = z.output<typeof siteEventCreateSchema>;
export type SiteEventListQuery = z.output<typeof siteEventListQuerySchema>;

export function serializeSiteEvent(
  row: Pick<SiteEventRow, 'id' | 'title' | 'date' | 'type' | 'note'> & Partial<Pick<SiteEventRow, 'createdAt'>>,
) {
  return {
    id: row.id,
    title: row.title,
    date: row.date,
    type: row.type,
    note: row.note,
    ...(row.createdAt && { createdAt: row.createdAt }),
  };
}

/** The site's events, oldest first (the order a chart draws them), optionally between two dates (inclusive). */
export async function listSiteEvents(ctx: AppContext, site: SiteRow, query: SiteEventListQuery) {
  if (query.from && query.to && query.from > query.to)
    throw new ValidationError({ from: 'from must not be after to' }, 'Some query parameters are not valid');
  let q = ctx.db.selectFrom('siteEvents').where('siteId', '=', site.id);
  if (query.from) q = q.where('date', '>=', query.from);
  if (query.to) q = q.where('date', '<=', query.to);
  const [count, rows] = await Promise.all([
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    q
      .selectAll()
      .orderBy('date')
      .orderBy('id')
      .limit(query.perPage)
      .offset((query.page - 1) * query.perPage)
      .execute(),
  ]);
  return { events: rows.map(serializeSiteEvent), total: Number(count.n), page: query.page, perPage: query.perPage };
}

export async function createSiteEvent(ctx: AppContext, site: SiteRow, input: SiteEventCreate) {
  return ctx.db.transaction().execute(async (trx) => {
    // Serialised per site, so two adds at once cannot both pass the limit.
    await lockSite(trx, site.id);
    const count = await trx
      .selectFrom('siteEvents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= SITE_EVENTS_MAX)
      throw new BadRequestError(
        `This project has ${SITE_EVENTS_MAX} events, the most a project can have; remove some first`,
      );
    const row = await trx
      .insertInto('siteEvents')
      .values({ siteId: site.id, ...input })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { event: serializeSiteEvent(row) };
  });
}

export async function deleteSiteEvent(ctx: AppContext, site: SiteRow, eventId: number) {
  const row = await ctx.db
    .deleteFrom('siteEvents')
    .where('id', '=', eventId)
    .where('siteId', '=', site.id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No event with id ${eventId}`);
  return { deleted: true, event: serializeSiteEvent(row) };
}

/** Events dated inside [first, last], oldest first: what a trend chart over that window draws. */
export async function siteEventsBetween(db: Db, siteId: number, first: string, last: string) {
  const rows = await db
    .selectFrom('siteEvents')
    .select(['id', 'title', 'date', 'type', 'note'])
    .where('siteId', '=', siteId)
    .where('date', '>=', first)
    .where('date', '<=', last)
    .orderBy('date')
    .orderBy('id')
    .limit(SITE_EVENTS_MAX)
    .execute();
  return rows.map(serializeSiteEvent);
}
