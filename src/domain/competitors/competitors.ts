import type { AppContext } from '../../context.ts';
import type { CompetitorRow, SiteRow } from '../../db/schema.ts';
import { BadRequestError, ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import { domainFromAddress, serializeCompetitor } from '../sites/index.ts';
import { requestReanalysis, type ReanalysisView } from '../reanalysis/index.ts';
import { loadBrandBookInput } from '../facts/index.ts';
import { uniqueNames, MAX_ID } from '../common/index.ts';
import { previewNames, nameWarnings } from '../names/index.ts';
import type { BrandBookInput } from '../../analysis/index.ts';
import type { CompetitorInput } from './schemas.ts';

export const MAX_COMPETITORS_PER_SITE = 50;

function cleanAliases(aliases: string[], name: string): string[] {
  const seen = new Set([name.toLowerCase()]);
  return aliases.map((a) => a.trim()).filter((a) => a && !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
}

function checkedDomain(domain: string | null | undefined): string | null | undefined {
  if (domain === undefined || domain === null || domain.trim() === '') return domain === undefined ? undefined : null;
  const parsed = domainFromAddress(domain);
  if (!parsed) throw new ValidationError({ domain: 'not a domain' });
  return parsed;
}

async function assertNameFree(ctx: AppContext, siteId: number, name: string, exceptId?: number): Promise<void> {
  let q = ctx.db
    .selectFrom('competitors')
    .select('id')
    .where('siteId', '=', siteId)
    .where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId !== undefined) q = q.where('id', '!=', exceptId);
  const clash = await q.executeTakeFirst();
  if (clash)
    throw new ConflictError(`A competitor named ${name} is already tracked (id ${clash.id})`, {
      name: 'already tracked',
    });
}

async function findCompetitor(ctx: AppContext, siteId: number, competitorId: number): Promise<CompetitorRow> {
  const row = await ctx.db
    .selectFrom('competitors')
    .selectAll()
    .where('id', '=', competitorId)
    .where('siteId', '=', siteId)
    .executeTakeFirst();
  if (!row) throw new NotFoundError(`No competitor with id ${competitorId}`);
  return row;
}

/** Names changed: the site's brand book changed, so its stored answers are re-read. */
async function namesChanged(ctx: AppContext, site: SiteRow, reason: string): Promise<ReanalysisView> {
  await ctx.db
    .updateTable('sites')
    .set((eb) => ({ brandVersion: eb('brandVersion', '+', 1), updatedAt: ctx.clock.now() }))
    .where('id', '=', site.id)
    .execute();
  return requestReanalysis(ctx, site, reason);
}

/** A dry run's would-be brand book: the site's current one with one competitor put in (or replaced), nothing saved. */
async function previewWith(ctx: AppContext, site: SiteRow, competitor: BrandBookInput['competitors'][number]) {
  const current = await loadBrandBookInput(ctx.db, site.id);
  return previewNames(ctx, site, {
    ...current,
    competitors: [...current.competitors.filter((c) => c.id !== competitor.id), competitor],
  });
}

export async function trackCompetitor(ctx: AppContext, site: SiteRow, input: CompetitorInput & { name: string }) {
  const name = input.name.trim();
  const domain = checkedDomain(input.domain) ?? null;
  await assertNameFree(ctx, site.id, name);
  const aliases = cleanAliases(input.aliases ?? [], name);
  const excludePhrases = uniqueNames(input.excludePhrases ?? []);
  const warnings = nameWarnings([
    { field: 'name', names: [name] },
    { field: 'aliases', names: aliases },
  ]);
  if (input.dryRun) {
    // The id it would get is not known; the highest possible one sorts it last, as a new competitor's would.
    return {
      dryRun: true as const,
      preview: await previewWith(ctx, site, { id: MAX_ID, name, aliases, domain, excludePhrases }),
      warnings,
    };
  }
  // The site row stays locked until the insert commits: concurrent adds are counted one after the other.
  const row = await ctx.db.transaction().execute(async (trx) => {
    await trx.selectFrom('sites').select('id').where('id', '=', site.id).forNoKeyUpdate().executeTakeFirstOrThrow();
    const count = await trx
      .selectFrom('competitors')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= MAX_COMPETITORS_PER_SITE)
      throw new BadRequestError(`A site tracks at most ${MAX_COMPETITORS_PER_SITE} competitors`);
    return trx
      .insertInto('competitors')
      .values({
        siteId: site.id,
        name,
        domain,
        aliases,
        excludePhrases,
        color: input.color ?? null,
        logo: input.logo ?? null,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
      .catch((err: { code?: string }) => {
        if (err.code === '23505')
          throw new ConflictError(`A competitor named ${name} is already tracked`, { name: 'already tracked' });
        throw err;
      });
  });
  return {
    competitor: serializeCompetitor(row),
    reanalysis: await namesChanged(ctx, site, `competitor ${name} tracked`),
    warnings,
  };
}

export async function changeCompetitor(ctx: AppContext, site: SiteRow, competitorId: number, input: CompetitorInput) {
  const current = await findCompetitor(ctx, site.id, competitorId);
  const name = input.name?.trim() ?? current.name;
  if (name.toLowerCase() !== current.name.toLowerCase()) await assertNameFree(ctx, site.id, name, competitorId);
  const domain = checkedDomain(input.domain);
  const aliases = input.aliases === undefined ? undefined : cleanAliases(input.aliases, name);
  const excludePhrases = input.excludePhrases === undefined ? undefined : uniqueNames(input.excludePhrases);
  const warnings = nameWarnings([
    { field: 'name', names: input.name === undefined ? [] : [name] },
    { field: 'aliases', names: aliases },
  ]);
  if (input.dryRun) {
    const competitor = {
      id: competitorId,
      name,
      aliases: aliases ?? current.aliases,
      domain: domain === undefined ? current.domain : domain,
      excludePhrases: excludePhrases ?? current.excludePhrases,
    };
    return { dryRun: true as const, preview: await previewWith(ctx, site, competitor), warnings };
  }
  const row = await ctx.db
    .updateTable('competitors')
    .set({
      name,
      ...(domain !== undefined && { domain }),
      ...(aliases !== undefined && { aliases }),
      ...(excludePhrases !== undefined && { excludePhrases }),
      ...(input.color !== undefined && { color: input.color }),
      ...(input.logo !== undefined && { logo: input.logo }),
    })
    .where('id', '=', competitorId)
    .returningAll()
    .executeTakeFirstOrThrow();
  const matchingChanged =
    row.name !== current.name ||
    row.domain !== current.domain ||
    row.aliases.join('\n') !== current.aliases.join('\n') ||
    row.excludePhrases.join('\n') !== current.excludePhrases.join('\n');
  return {
    competitor: serializeCompetitor(row),
    reanalysis: matchingChanged ? await namesChanged(ctx, site, `competitor ${row.name} changed`) : null,
    warnings,
  };
}

/** Stops tracking; stored answers stay, and their facts are re-read without this name. */
export async function untrackCompetitor(ctx: AppContext, site: SiteRow, competitorId: number) {
  const row = await findCompetitor(ctx, site.id, competitorId);
  await ctx.db.deleteFrom('competitors').where('id', '=', competitorId).execute();
  return {
    deleted: true,
    competitor: serializeCompetitor(row),
    reanalysis: await namesChanged(ctx, site, `competitor ${row.name} no longer tracked`),
  };
}
