import type { SiteType } from '../../analysis/index.ts';

/** What kind of site a cited page is on (src/analysis/site-types.ts reads it), in the order reports list them. */
export const SITE_TYPES = [
  'own',
  'competitor',
  'ugc',
  'review',
  'news',
  'reference',
  'social',
  'video',
  'other',
] as const satisfies readonly SiteType[];
