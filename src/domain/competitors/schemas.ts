import { z } from 'zod';
import { text } from '../common/index.ts';
import { dryRunField, excludePhrasesField } from '../names/index.ts';

/**
 * Request schemas of competitors; `domain: null` removes a domain, `aliases`
 * and `excludePhrases` replace their lists, `dryRun: true` saves nothing and
 * answers a preview (domain/names/preview.ts).
 */

const fields = {
  domain: text('domain', 2000, 0).nullish(),
  aliases: z.array(text('an alias', 200)).max(30, 'at most 30 aliases').optional(),
  excludePhrases: excludePhrasesField,
  dryRun: dryRunField,
  color: z
    .string()
    .regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'must be a hex colour such as #1a73e8')
    .nullish(),
  logo: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .nullish(),
};

export const competitorTrackSchema = z.object({ name: text('name', 200), ...fields });
export const competitorChangeSchema = z.object({ name: text('name', 200).optional(), ...fields });

export type CompetitorInput = z.output<typeof competitorChangeSchema>;
