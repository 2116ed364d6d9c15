import type { z } from 'zod';
import { ValidationError, type FieldErrors } from '../errors.ts';

export function fieldErrors(error: z.ZodError, root: string): FieldErrors {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : root;
    // The first problem of a field is the one a person fixes first.
    fields[key] ??= issue.message;
  }
  return fields;
}

/** Parses input against a schema or throws 422 naming each wrong field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, root: 'body' | 'query'): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ValidationError(
      fieldErrors(result.error, root),
      root === 'query' ? 'Some query parameters are not valid' : 'Some fields are not valid',
    );
  }
  return result.data;
}
