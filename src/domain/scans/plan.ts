import { sql } from 'kysely';
import {
  PROVIDER_KEYS,
  upstreamFor,
  defaultModel,
  findModel,
  type ModelEntry,
  type ProviderKey,
} from '../../assistants/catalog.ts';
import { targetKind } from '../../assistants/targets.ts';
import type { AppContext } from '../../context.ts';
import type { ScanSettingsJson, SiteRow } from '../../db/schema.ts';
import { BadRequestError, ValidationError } from '../../errors.ts';
import { usdToMicros, type Micros } from '../../money.ts';
import type { ScanRequest } from './schemas.ts';
import { findCategoryByName } from '../categories/index.ts';
import { answersFree, chargedPrice, connectedProviders } from '../providers/index.ts';

export type { ScanRequest } from './schemas.ts';

export interface ProviderPlan {
  provider: ProviderKey;
  model: ModelEntry;
  /** Batch pricing: only API models with a batch price, and only when the scan asked for batch. */
  batch: boolean;
  /** What each answer is charged: 0 for answers simulated in `auto` mode (providers.ts answersFree). */
  priceMicros: Micros;
  /** Answered by the bundled simulator, not the provider (said on the scan and its answers). */
  simulated: boolean;
  /** Not charged: simulated because a credential is missing in `auto` mode. */
  free: boolean;
}

export interface ScanPlan {
  promptIds: number[];
  providers: ProviderPlan[];
  /** Answers per prompt and assistant: each sample is its own answer, reservation and charge. */
  samples: number;
  answers: number;
  costMicros: Micros;
  /** The limit the scan may spend: the request's, else the saved one (with `saved`), else twice the estimate. */
  budgetMicros: Micros;
  category: string | null;
  batch: boolean;
}

/** Resolves a scan request against the site's prompts, settings and the catalog. Shared by estimate, start and schedules. */
export async function planScan(ctx: AppContext, site: SiteRow, req: ScanRequest): Promise<ScanPlan> {
  const saved: ScanSettingsJson = site.scanSettings;
  const from = req.saved
    ? { providers: saved.providers as ProviderKey[] | undefined, models: saved.models, category: saved.category }
    : req;
  const batch = req.batch === true;

  const allowed = site.allowedProviders ?? [...PROVIDER_KEYS];
  const connected = connectedProviders(ctx.config);
  let providers: ProviderKey[];
  if (from.providers && from.providers.length > 0) {
    const refused = from.providers.filter((p) => !allowed.includes(p));
    if (refused.length)
      throw new BadRequestError(`This project may not ask ${refused.join(', ')}; allowed: ${allowed.join(', ')}`);
    const offline = from.providers.filter((p) => !connected.includes(p));
    if (offline.length)
      throw new BadRequestError(
        `${offline.join(', ')} ${offline.length > 1 ? 'are' : 'is'} not connected on this deployment (no credential); connected: ${connected.join(', ') || 'none'}`,
      );
    providers = [...new Set(from.providers)];
  } else {
    providers = PROVIDER_KEYS.filter((p) => allowed.includes(p) && connected.includes(p));
  }
  if (providers.length === 0)
    throw new BadRequestError('No assistant is both allowed for this project and connected on this deployment');

  const plans = providers.map((provider): ProviderPlan => {
    const id = from.models?.[provider];
    const model = id ? findModel(provider, id) : defaultModel(provider);
    if (!model) throw new ValidationError({ [`models.${provider}`]: `unknown model ${id}` });
    const useBatch = batch && model.batchPriceMicros !== null;
    const simulated = targetKind(ctx.config.assistants, upstreamFor(provider, model)) === 'simulator';
    return {
      provider,
      model,
      batch: useBatch,
      priceMicros: chargedPrice(ctx.config, provider, model, useBatch),
      simulated,
      free: answersFree(ctx.config, provider, model),
    };
  });

  let category: string | null = from.category?.trim() || null;
  let query = ctx.db
    .selectFrom('prompts as p')
    .select('p.id')
    .where('p.siteId', '=', site.id)
    .where('p.status', '=', 'active');
  if (req.promptIds && req.promptIds.length > 0) query = query.where('p.id', 'in', req.promptIds);
  if (category) {
    const found = await findCategoryByName(ctx.db, site.id, category);
    if (!found) throw new ValidationError({ category: 'no such category in this project' });
    category = found.name;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('promptCategories as pc')
          .select('pc.promptId')
          .whereRef('pc.promptId', '=', 'p.id')
          .where('pc.categoryId', '=', found.id),
      ),
    );
  }
  if (req.sample !== undefined) query = query.orderBy(sql`random()`).limit(req.sample);
  else query = query.orderBy('p.id');
  const promptIds = (await query.execute()).map((p) => p.id);

  // The request's samples win; `saved` takes the saved setting, as it takes the saved budget.
  const samples = req.samples ?? (req.saved ? saved.samples : undefined) ?? 1;
  const costMicros = plans.reduce((sum, p) => sum + p.priceMicros * promptIds.length * samples, 0);
  const requestedBudget = req.budgetUsd !== undefined && req.budgetUsd > 0 ? usdToMicros(req.budgetUsd) : undefined;
  const savedBudget = req.saved && saved.budgetMicros ? saved.budgetMicros : undefined;
  return {
    promptIds,
    providers: plans,
    samples,
    answers: promptIds.length * plans.length * samples,
    costMicros,
    budgetMicros: requestedBudget ?? savedBudget ?? costMicros * 2,
    category,
    batch,
  };
}
