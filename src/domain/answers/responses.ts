import { z } from 'zod';
import { count, dateTime, id, named, oneOf, provider, tone, usd, verdict } from '../common/responses.ts';
import { SITE_TYPES } from '../reports/sources.ts';

/** Response schemas of answers (see src/domain/common/responses.ts). */

export const siteType = oneOf(SITE_TYPES).describe('own, competitor, ugc (forums), review, news, reference, social, video or other');

export const answer = named(
  'Answer',
  'One answer word for word with what analysis found: the verdict, brands named in rank order, sources cited, web searches, tone',
  z.object({
    id,
    scanId: id,
    promptId: id,
    prompt: z.string().describe('The prompt’s text'),
    provider,
    sample: z.int().positive().describe('Which of the scan’s samples of this prompt and assistant'),
    model: z.string(),
    askedAt: dateTime,
    text: z.string().nullable().describe('null when the assistant gave no answer'),
    verdict,
    mentioned: z.boolean(),
    ownCited: z.boolean(),
    brandRank: z.int().positive().nullable(),
    brands: z.array(z.object({ name: z.string(), kind: z.enum(['brand', 'competitor']), position: count.describe('Where it is first named in the text (character offset)') })),
    citations: z.array(z.object({ url: z.string(), title: z.string().nullable(), domain: z.string(), siteType })),
    searches: z.array(z.string()),
    context: z.string().nullable().describe('The persona wording the prompt was asked in'),
    simulated: z.boolean().describe('Answered by the bundled simulator, not the provider'),
    tone: tone.nullable(),
    toneScore: z.number().nullable(),
    quote: z.string().nullable().describe('The sentence naming the brand that carries the tone'),
    error: z.string().nullable(),
    truncated: z.boolean(),
    costUsd: usd,
  }),
);
