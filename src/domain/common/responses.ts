import { z } from 'zod';
import { PROVIDER_KEYS, type ProviderKey } from '../../assistants/catalog.ts';

/**
 * Response-schema pieces every feature shares. Each feature describes what
 * its use cases answer in `<feature>/responses.ts`, built from these; routes
 * declare them (`responses` in defineRoute), the OpenAPI document emits the
 * named ones as `components/schemas`, and the integration tests validate
 * every JSON response against its route's schema.
 *
 * They describe the JSON on the wire. Objects stay open (`z.object`, never
 * strict): a field added later never makes an older schema refuse a response.
 * Input types are what a use case hands the route before JSON is written
 * (a Date where the wire has an ISO string, a text column where the wire
 * has one of a few words), so handlers type-check against them unchanged.
 */

/** Named response schemas: each becomes `#/components/schemas/<id>` in the OpenAPI document. */
export const responseSchemas = z.registry<{ id: string; description: string }>();

/** Registers a response schema under a component name, with a description for the document. */
export function named<S extends z.ZodType>(id: string, description: string, schema: S): S {
  const described = schema.describe(description);
  responseSchemas.add(described, { id, description });
  return described;
}

/** An instant as JSON writes it, ISO 8601 UTC (`2026-11-24T09:30:00.000Z`); use cases hand a Date. */
export const dateTime = z.iso.datetime() as unknown as z.ZodType<string, string | Date>;

/** A calendar day, `YYYY-MM-DD`. */
export const day = z.iso.date();

/** One of a closed set of words, read from a column typed wider (text) that only ever holds these. */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<T[number], string> {
  return z.enum(values) as unknown as z.ZodType<T[number], string>;
}

/** A provider key (CONTRACT.md "Names and wire basics"). */
export const provider = oneOf(PROVIDER_KEYS).describe(
  'Provider key: openai, anthropic, perplexity, gemini, google-ai-overview or google-ai-mode',
);

/** An object with every provider key, each holding `value`. */
export function byProvider<S extends z.ZodType>(value: S) {
  return z.object(Object.fromEntries(PROVIDER_KEYS.map((k) => [k, value])) as Record<ProviderKey, S>);
}

export const id = z.int().positive();
export const count = z.int().nonnegative();
/** Money in USD, rounded to 6 decimals (CONTRACT.md: stored as micro-dollars). */
export const usd = z.number();
/** A percentage, 0 to 100 to one decimal; null where its whole is empty. */
export const percent = z.number().nullable();

export const verdict = z
  .enum(['failed', 'cited', 'named', 'lost', 'missing'])
  .describe(
    'failed, cited (own page linked), named (brand mentioned), lost (a competitor named, the brand not) or missing',
  );
export const tone = z.enum(['positive', 'neutral', 'negative']);
export const stability = z.enum(['held', 'volatile', 'lost']);
export const periodKind = z.enum(['day', 'week', 'month', 'quarter']);

/** The fields of a paged list beside its items. */
export const paging = { total: count, page: z.int().positive(), perPage: z.int().positive() };

/** What every report echoes: the period shown (first and last day) and every period with data. */
export const periodEcho = {
  period: periodKind,
  start: day.describe('First day of the period shown'),
  end: day.describe('Last day of the period shown'),
  periods: z.array(day).describe('Start of every period with data, oldest first'),
};

/** The error envelope of every 4xx and 5xx JSON response (CONTRACT.md). */
export const errorEnvelope = named(
  'Error',
  'The error envelope of every refusal: a message, and `fields` naming each wrong input field (422) or null',
  z.object({ error: z.string(), fields: z.record(z.string(), z.string()).nullable() }),
);
