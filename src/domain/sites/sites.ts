import type { AppContext } from '../../context.ts';
import { uniqueNames } from '../common/index.ts';
import type { Db } from '../../db/database.ts';
import type { CompetitorRow, ScanSettingsJson, SiteRow } from '../../db/schema.ts';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { microsToUsd } from '../../money.ts';
import { domainFromAddress } from './site-domain.ts';
import type { SiteListQuery, SiteCreate } from './schemas.ts';
import { limitsOf } from '../orgs/index.ts';

export function serializeScanSettings(s: ScanSettingsJson) {
  return {
    providers: s.providers ?? null,
    models: s.models ?? {},
    category: s.category ?? null,
    budgetUsd: s.budgetMicros === undefined ? 0 : microsToUsd(s.budgetMicros),
    skipAtCap: s.skipAtCap ?? true,
    samples: s.samples ?? 1,
  };
}

export function serializeCompetitor(c: CompetitorRow) {
  return {
    id: c.id,
    name: c.name,
    domain: c.domain,
    aliases: c.aliases,
    excludePhrases: c.excludePhrases,
    color: c.color,
    logo: c.logo,
    createdAt: c.createdAt,
  };
}

export function serializeSite(site: SiteRow, competitors: CompetitorRow[]) {
  return {
    id: site.id,
    orgId: site.orgId,
    name: site.name,
    url: site.url,
    domain: site.domain,
    industry: site.industry,
    brandTerms: site.brandTerms,
    excludePhrases: site.excludePhrases,
    language: site.language,
    location: site.location,
    scanFrequencyDays: site.scanFrequencyDays,
    monthlyCapUsd: site.monthlyCapMicros === null ? null : microsToUsd(site.monthlyCapMicros),
    scanSettings: serializeScanSettings(site.scanSettings),
    allowedProviders: site.allowedProviders,
    schedule: { enabled: site.scheduleEnabled, batch: site.scheduleBatch, nextScanAt: site.nextScanAt },
    competitors: competitors.map(serializeCompetitor),
    createdAt: site.createdAt,
    updatedAt: site.updatedAt,
  };
}

/** Every site lookup goes through the caller's workspace: another workspace's id is a 404. */
export async function findSite(db: Db, orgId: number, siteId: number): Promise<SiteRow> {
  const site = await db
    .selectFrom('sites')
    .selectAll()
    .where('id', '=', siteId)
    .where('orgId', '=', orgId)
    .executeTakeFirst();
  if (!site) throw new NotFoundError(`No project with id ${siteId}`);
  return site;
}

/** A site of any workspace, for operator commands (no key scopes them). */
/** An operator's look-up of a site by id alone, across workspaces (the CLI). */
export async function findSiteForOperator(ctx: AppContext, siteId: number): Promise<SiteRow> {
  const site = await ctx.db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirst();
  if (!site) throw new NotFoundError(`No project with id ${siteId}`);
  return site;
}

export async function competitorsOf(db: Db, siteIds: number[]): Promise<Map<number, CompetitorRow[]>> {
  const map = new Map<number, CompetitorRow[]>(siteIds.map((id) => [id, []]));
  if (siteIds.length === 0) return map;
  const rows = await db.selectFrom('competitors').selectAll().where('siteId', 'in', siteIds).orderBy('id').execute();
  for (const row of rows) map.get(row.siteId)?.push(row);
  return map;
}

export async function listSites(ctx: AppContext, orgId: number, page?: { limit: number; offset: number }) {
  const { db } = ctx;
  let query = db.selectFrom('sites').selectAll().where('orgId', '=', orgId).orderBy('id');
  if (page) query = query.limit(page.limit).offset(page.offset);
  const sites = await query.execute();
  const competitors = await competitorsOf(
    db,
    sites.map((s) => s.id),
  );
  return sites.map((s) => serializeSite(s, competitors.get(s.id) ?? []));
}

/** The workspace's sites a page at a time, oldest first (GET /orgs/:orgId/projects). */
export async function listSitePage(ctx: AppContext, orgId: number, query: SiteListQuery) {
  const [count, sites] = await Promise.all([
    ctx.db
      .selectFrom('sites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', orgId)
      .executeTakeFirstOrThrow(),
    listSites(ctx, orgId, { limit: query.perPage, offset: (query.page - 1) * query.perPage }),
  ]);
  return { projects: sites, total: Number(count.n), page: query.page, perPage: query.perPage };
}

/** The site row and its first competitors, within the workspace's limit of sites; createSite (src/domain/onboarding) also queues its first reads. */
export async function insertSite(ctx: AppContext, actor: { orgId: number; userId: number }, input: SiteCreate) {
  const domain = domainFromAddress(input.url);
  if (!domain)
    throw new BadRequestError(`"${input.url}" is not a domain: give a public web address such as acme.com`, {
      url: 'not a domain',
    });

  const fields: Record<string, string> = {};
  const competitors = (input.competitors ?? []).map((c, i) => {
    let compDomain: string | null = null;
    if (c.domain) {
      compDomain = domainFromAddress(c.domain);
      if (!compDomain) fields[`competitors.${i}.domain`] = 'not a domain';
    }
    return { name: c.name.trim(), domain: compDomain };
  });
  const names = new Set<string>();
  competitors.forEach((c, i) => {
    const key = c.name.toLowerCase();
    if (names.has(key)) fields[`competitors.${i}.name`] = 'listed twice';
    names.add(key);
  });
  if (Object.keys(fields).length) throw new ValidationError(fields);

  return ctx.db.transaction().execute(async (trx) => {
    // Lock the workspace row so two concurrent creates cannot both pass the limit.
    const org = await trx
      .selectFrom('orgs')
      .selectAll()
      .where('id', '=', actor.orgId)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const limit = limitsOf(org).sites;
    const count = await trx
      .selectFrom('sites')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('orgId', '=', actor.orgId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= limit) throw new BadRequestError(`This workspace has reached its limit of ${limit} sites`);
    const dup = await trx
      .selectFrom('sites')
      .select('id')
      .where('orgId', '=', actor.orgId)
      .where('domain', '=', domain)
      .executeTakeFirst();
    if (dup)
      throw new ConflictError(`${domain} is already a project in this workspace (id ${dup.id})`, {
        url: 'already tracked',
      });

    const site = await trx
      .insertInto('sites')
      .values({
        orgId: actor.orgId,
        name: input.name.trim(),
        url: input.url.trim(),
        domain,
        industry: input.industry?.trim() || null,
        brandTerms: uniqueNames(input.brandTerms ?? []),
        excludePhrases: uniqueNames(input.excludePhrases ?? []),
        language: input.language?.trim() || undefined,
        location: input.location?.trim() || undefined,
        createdBy: actor.userId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const rows = competitors.length
      ? await trx
          .insertInto('competitors')
          .values(competitors.map((c) => ({ siteId: site.id, name: c.name, domain: c.domain })))
          .returningAll()
          .execute()
      : [];
    return serializeSite(site, rows);
  });
}
