import type { AppContext } from '../../context.ts';
import { uniqueNames } from '../common/index.ts';
import { findCategoryByName } from '../categories/index.ts';
import type { Role, ScanSettingsJson, SiteRow } from '../../db/schema.ts';
import { ForbiddenError, ValidationError } from '../../errors.ts';
import { usdToMicros } from '../../money.ts';
import { requestReanalysis, type ReanalysisView } from '../reanalysis/index.ts';
import { previewNames, nameWarnings } from '../names/index.ts';
import { loadBrandBookInput } from '../facts/index.ts';
import { atLeast } from '../orgs/index.ts';
import { competitorsOf, serializeSite } from '../sites/index.ts';
import type { ScanSettingsInput, SiteChanges } from '../sites/index.ts';

const ADMIN_ONLY = ['monthlyCapUsd', 'scanSettings', 'allowedProviders'] as const;

export function scanSettingsJson(s: ScanSettingsInput): ScanSettingsJson {
  return {
    ...(s.providers && { providers: s.providers }),
    ...(s.models && { models: s.models }),
    ...(s.category && { category: s.category }),
    ...(s.budgetUsd !== undefined && s.budgetUsd > 0 && { budgetMicros: usdToMicros(s.budgetUsd) }),
    ...(s.skipAtCap !== undefined && { skipAtCap: s.skipAtCap }),
    ...(s.samples !== undefined && s.samples > 1 && { samples: s.samples }),
  };
}

export async function siteWithDetails(ctx: AppContext, site: SiteRow, role: Role) {
  const [competitors, answers] = await Promise.all([
    competitorsOf(ctx.db, [site.id]),
    ctx.db
      .selectFrom('answers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('siteId', '=', site.id)
      .executeTakeFirstOrThrow(),
  ]);
  return { ...serializeSite(site, competitors.get(site.id) ?? []), role, answersCount: Number(answers.n) };
}

/**
 * Changes a site's settings. Members may change names and places; the cap,
 * scan settings and allowed providers need admin. A new name, brand terms
 * or exclusion phrases re-read every stored answer, and the response
 * carries that `reanalysis`, and `warnings` for ambiguous names it saves.
 * With `dryRun` nothing is saved: the answer is what the names would do
 * to the stored answers (previewNames), after the same checks.
 */
export async function changeSite(ctx: AppContext, site: SiteRow, role: Role, changes: SiteChanges) {
  const adminFields = ADMIN_ONLY.filter((f) => changes[f] !== undefined);
  if (adminFields.length && !atLeast(role, 'admin')) {
    throw new ForbiddenError(
      `Changing ${adminFields.join(', ')} needs a key with admin access; this key has ${role} access`,
    );
  }
  const category = changes.scanSettings?.category;
  if (category && !(await findCategoryByName(ctx.db, site.id, category)))
    throw new ValidationError({ 'scanSettings.category': 'no such category in this project' });
  const brandTerms = changes.brandTerms && uniqueNames(changes.brandTerms);
  const excludePhrases = changes.excludePhrases && uniqueNames(changes.excludePhrases);
  const differs = (next: string[] | undefined, now: string[]) =>
    next !== undefined && next.join('\n') !== now.join('\n');
  const namesChanged =
    (changes.name !== undefined && changes.name !== site.name) ||
    differs(brandTerms, site.brandTerms) ||
    differs(excludePhrases, site.excludePhrases);
  const warnings = nameWarnings([
    { field: 'name', names: changes.name === undefined ? [] : [changes.name] },
    { field: 'brandTerms', names: brandTerms },
  ]);
  if (changes.dryRun) {
    const current = await loadBrandBookInput(ctx.db, site.id);
    const input = {
      ...current,
      name: changes.name ?? current.name,
      brandTerms: brandTerms ?? current.brandTerms,
      excludePhrases: excludePhrases ?? current.excludePhrases,
    };
    return { dryRun: true as const, preview: await previewNames(ctx, site, input), warnings };
  }
  const updated = await ctx.db
    .updateTable('sites')
    .set((eb) => ({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(brandTerms !== undefined && { brandTerms }),
      ...(excludePhrases !== undefined && { excludePhrases }),
      ...(changes.industry !== undefined && { industry: changes.industry || null }),
      ...(changes.language !== undefined && { language: changes.language }),
      ...(changes.location !== undefined && { location: changes.location }),
      ...(changes.scanFrequencyDays !== undefined && { scanFrequencyDays: changes.scanFrequencyDays }),
      // null or 0 removes the cap (spec).
      ...(changes.monthlyCapUsd !== undefined && {
        monthlyCapMicros: changes.monthlyCapUsd ? usdToMicros(changes.monthlyCapUsd) : null,
      }),
      ...(changes.scanSettings !== undefined && {
        scanSettings: JSON.stringify(scanSettingsJson(changes.scanSettings)),
      }),
      ...(changes.allowedProviders !== undefined && { allowedProviders: changes.allowedProviders }),
      ...(namesChanged && { brandVersion: eb('brandVersion', '+', 1) }),
      updatedAt: ctx.clock.now(),
    }))
    .where('id', '=', site.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  let reanalysis: ReanalysisView | null = null;
  if (namesChanged)
    reanalysis = await requestReanalysis(ctx, updated, 'site name, brand terms or exclusion phrases changed');
  return { project: await siteWithDetails(ctx, updated, role), reanalysis, warnings };
}

/** The coming midnight UTC: scheduled scans run at night, spread over its first hours. */
export function nextNight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
}

export async function setSchedule(
  ctx: AppContext,
  site: SiteRow,
  role: Role,
  input: { enabled: boolean; batch?: boolean | undefined },
) {
  const turningOn = input.enabled && !site.scheduleEnabled;
  const updated = await ctx.db
    .updateTable('sites')
    .set({
      scheduleEnabled: input.enabled,
      ...(input.batch !== undefined && { scheduleBatch: input.batch }),
      nextScanAt: input.enabled ? (turningOn || !site.nextScanAt ? nextNight(ctx.clock.now()) : site.nextScanAt) : null,
      updatedAt: ctx.clock.now(),
    })
    .where('id', '=', site.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { project: await siteWithDetails(ctx, updated, role) };
}
