import { z } from 'zod';
import { PROVIDER_KEYS, findModel, isProviderKey, providerEntry } from '../assistants/catalog.ts';

/** Small reusable request-schema pieces, so each field is validated one way everywhere. */
export const trimmed = (label: string, max: number, min = 1) =>
  z
    .string({ error: `${label} must be a string` })
    .trim()
    .min(min, min === 1 ? `${label} must not be empty` : `${label} needs at least ${min} characters`)
    .max(max, `${label} must be at most ${max} characters`);

export const keyRole = z.enum(['viewer', 'member', 'admin'], { error: 'must be viewer, member or admin' });

export const usdAmount = z.number({ error: 'must be a number of US dollars' }).finite().min(0, 'must not be negative').max(1_000_000, 'must be at most 1,000,000');

export const providerKey = z.enum(PROVIDER_KEYS, { error: `must be one of ${PROVIDER_KEYS.join(', ')}` });

/** Provider key -> model id, each id checked against the catalog. */
export const modelsByProvider = z.record(z.string(), z.string()).superRefine((models, ctx) => {
  for (const [provider, model] of Object.entries(models)) {
    if (!isProviderKey(provider)) ctx.addIssue({ code: 'custom', path: [provider], message: `unknown provider; use one of ${PROVIDER_KEYS.join(', ')}` });
    else if (!findModel(provider, model)) {
      const ids = providerEntry(provider).models.map((m) => m.id);
      ctx.addIssue({ code: 'custom', path: [provider], message: `unknown model for ${provider}; use one of ${ids.join(', ')}` });
    }
  }
});

export const scanSettingsBody = z.object({
  providers: z.array(providerKey).max(PROVIDER_KEYS.length).optional(),
  models: modelsByProvider.optional(),
  category: z.string().trim().max(100).nullish(),
  budgetUsd: usdAmount.optional(),
  skipAtCap: z.boolean({ error: 'must be true or false' }).optional(),
});
