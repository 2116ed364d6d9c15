import { z } from 'zod';
import { count, dateTime, id, named, oneOf, provider, tone, usd, verdict, SITE_TYPES } from '../common/index.ts';

/** Response schemas of answers (see src/domain/common/responses.ts). */

export const siteType = oneOf(SITE_TYPES).describe(
  'own, competitor, ugc (forums), review, news, reference, social, video or other',
);

export const analysisExtent = named(
  'AnalysisExtent',
  'How much of the text the facts of this answer (verdict, brands, citations’ types, tone, quote) were read from. The whole text is always stored and shown; analysis reads at most its first 100,000 characters',
  z.object({
    readChars: count.describe(
      'Characters of the text analysis read, from its start (UTF-16 code units, as brand positions count them)',
    ),
    truncated: z
      .boolean()
      .describe(
        'The text is longer than analysis reads: nothing after readChars was read, so a brand named only there is not counted',
      ),
    timedOut: z
      .boolean()
      .describe(
        'Analysis could not finish within its time limit: nothing was found in the text and no citation was classified; the next reanalysis tries again',
      ),
  }),
);

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
    brands: z.array(
      z.object({
        name: z.string(),
        kind: z.enum(['brand', 'competitor']),
        position: count.describe('Where it is first named in the text (character offset)'),
      }),
    ),
    citations: z.array(z.object({ url: z.string(), title: z.string().nullable(), domain: z.string(), siteType })),
    searches: z.array(z.string()),
    context: z.string().nullable().describe('The persona wording the prompt was asked in'),
    simulated: z.boolean().describe('Answered by the bundled simulator, not the provider'),
    tone: tone.nullable(),
    toneScore: z.number().nullable(),
    quote: z.string().nullable().describe('The sentence naming the brand that carries the tone'),
    error: z.string().nullable(),
    truncated: z.boolean().describe('The assistant’s reply was over 200 KB and was cut before it was stored'),
    analysis: analysisExtent,
    costUsd: usd,
  }),
);
