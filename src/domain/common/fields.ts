import { z } from 'zod';
import { PROVIDER_KEYS, findModel, isProviderKey, providerEntry } from '../../assistants/catalog.ts';

/**
 * Request-schema pieces every feature shares, so each kind of field is
 * validated one way everywhere: routes, MCP tools and the CLI all parse
 * with schemas built from these.
 */

/** PostgreSQL text cannot hold NUL; refusing it in the schema keeps it a 422 instead of a database error. */
export const hasNoNul = (s: string): boolean => !s.includes('\u0000');

/** Messages that a field words its own way; the rest are the standard ones. */
export interface TextMessages {
  /** When the value is not a string (missing included). */
  type?: string;
  /** When it is too short or too long. */
  length?: string;
  /** When it is empty (min 1). */
  empty?: string;
}

/**
 * The one text field: a string, trimmed, `min` to `max` characters, no NUL.
 * `min: 0` allows an empty string (callers decide what empty means).
 */
export const text = (label: string, max: number, min = 1, messages: TextMessages = {}) => {
  const trimmed = z.string({ error: messages.type ?? `${label} must be a string` }).trim();
  const atLeast =
    min === 0
      ? trimmed
      : trimmed.min(
          min,
          messages.length ??
            (min === 1
              ? (messages.empty ?? `${label} must not be empty`)
              : `${label} needs at least ${min} characters`),
        );
  return atLeast
    .max(max, messages.length ?? `${label} must be at most ${max} characters`)
    .refine(hasNoNul, `${label} cannot contain NUL characters`);
};

/** Ids are 32-bit in the database; a larger number names nothing, and must not reach a query as an overflow. */
export const MAX_ID = 2_147_483_647;

export const idSchema = (label: string) =>
  z
    .number({ error: `${label} must be a number` })
    .int(`${label} must be a whole number`)
    .positive(`${label} must be positive`)
    .max(MAX_ID, `${label} is not an id`);

/** US dollars, kept to the micro-dollar money is counted in (a smaller fraction is no amount at all: 1e-323 is 0). */
export const usdAmount = z
  .number({ error: 'must be a number of US dollars' })
  .finite()
  .min(0, 'must not be negative')
  .max(1_000_000, 'must be at most 1,000,000')
  .transform((usd) => Math.round(usd * 1_000_000) / 1_000_000);

export const booleanField = z.boolean({ error: 'must be true or false' });

/** Answers per prompt and assistant in a scan (issue 16): each sample is asked, stored and charged as its own answer. */
export const SAMPLES_MAX = 5;
export const samplesField = z
  .number({ error: `must be a whole number from 1 to ${SAMPLES_MAX}` })
  .int(`must be a whole number from 1 to ${SAMPLES_MAX}`)
  .min(1, `must be a whole number from 1 to ${SAMPLES_MAX}`)
  .max(SAMPLES_MAX, `must be a whole number from 1 to ${SAMPLES_MAX}`);

export const providerKey = z.enum(PROVIDER_KEYS, { error: `must be one of ${PROVIDER_KEYS.join(', ')}` });

/** Provider key -> model id, each id checked against the catalog. */
export const modelsByProvider = z.record(z.string(), z.string()).superRefine((models, ctx) => {
  for (const [provider, model] of Object.entries(models)) {
    if (!isProviderKey(provider))
      ctx.addIssue({
        code: 'custom',
        path: [provider],
        message: `unknown provider; use one of ${PROVIDER_KEYS.join(', ')}`,
      });
    else if (!findModel(provider, model)) {
      const ids = providerEntry(provider).models.map((m) => m.id);
      ctx.addIssue({
        code: 'custom',
        path: [provider],
        message: `unknown model for ${provider}; use one of ${ids.join(', ')}`,
      });
    }
  }
});

/** A site or competitor address as typed (`acme.com`, `https://www.acme.com/`); the domain code decides what it names. */
export const addressField = (label: string) => text(label, 2000, 0);

/** A text query parameter: optional, given once; an empty parameter (`?q=`) filters nothing. */
export const queryText = (label: string, max: number) =>
  text(label, max, 0, { type: `${label} must be given once, as text` })
    .optional()
    .transform((v) => (v ? v : undefined));
