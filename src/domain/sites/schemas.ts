import { z } from 'zod';
import { PROVIDER_KEYS } from '../../assistants/catalog.ts';
import {
  booleanField,
  modelsByProvider,
  providerKey,
  samplesField,
  text,
  usdAmount,
  pagingShape,
} from '../common/index.ts';
import { dryRunField, excludePhrasesField } from '../names/index.ts';

/** Request schemas of sites; domain functions take their output types. */

const brandTerms = z.array(text('a brand term', 100)).max(50, 'at most 50 brand terms');

export const siteCreateSchema = z.object({
  name: text('name', 200),
  url: text('url', 2000, 1, { type: 'url is required: the site address, such as acme.com', empty: 'url is required' }),
  industry: text('industry', 200).nullish(),
  brandTerms: brandTerms.optional(),
  excludePhrases: excludePhrasesField,
  competitors: z
    .array(z.object({ name: text('competitor name', 200), domain: text('domain', 2000, 0).nullish() }))
    .max(50, 'at most 50 competitors')
    .optional(),
  language: text('language', 100).optional(),
  location: text('location', 100).optional(),
});

export const scanSettingsSchema = z.object({
  providers: z.array(providerKey).max(PROVIDER_KEYS.length).optional(),
  models: modelsByProvider.optional(),
  category: text('category', 100, 0).nullish(),
  budgetUsd: usdAmount.optional(),
  skipAtCap: booleanField.optional(),
  samples: samplesField.optional(),
});

export const siteChangeSchema = z.object({
  name: text('name', 200).optional(),
  brandTerms: brandTerms.optional(),
  excludePhrases: excludePhrasesField,
  dryRun: dryRunField,
  industry: text('industry', 200).nullish(),
  language: text('language', 100).optional(),
  location: text('location', 100).optional(),
  scanFrequencyDays: z
    .number({ error: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(1, 'at least 1')
    .max(365, 'at most 365')
    .optional(),
  monthlyCapUsd: usdAmount.nullish(),
  scanSettings: scanSettingsSchema.optional(),
  allowedProviders: z
    .array(providerKey)
    .refine((a) => new Set(a).size === a.length, 'lists a provider twice')
    .nullish(),
});

export const scheduleSchema = z.object({ enabled: booleanField, batch: booleanField.optional() });

/** The first page holds every site the largest plan allows. */
export const SITE_PAGE_DEFAULT = 100;
export const siteListQuerySchema = z.object(pagingShape(SITE_PAGE_DEFAULT));
export type SiteListQuery = z.output<typeof siteListQuerySchema>;

export type SiteCreate = z.output<typeof siteCreateSchema>;
export type SiteChanges = z.output<typeof siteChangeSchema>;
export type ScanSettingsInput = z.output<typeof scanSettingsSchema>;
export type ScheduleChange = z.output<typeof scheduleSchema>;
