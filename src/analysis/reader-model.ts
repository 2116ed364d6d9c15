import { z } from 'zod';
import type { ReaderModel } from './reading.ts';
import weights from './reader-weights.json' with { type: 'json' };

/**
 * The reader's weights (reading.ts): one per feature of an occurrence of an
 * everyday-word name, and a bias, in reader-weights.json, written by
 * scripts/names-train.ts. Reading an occurrence is the sum of the weights
 * of the features that fire, so the runtime is a dot product.
 */
const schema = z.object({
  method: z.string(),
  bias: z.number(),
  weights: z.record(z.string(), z.number()),
});

export function parseReaderModel(json: unknown): ReaderModel {
  const parsed = schema.parse(json);
  return { bias: parsed.bias, weights: Object.freeze({ ...parsed.weights }) };
}

export const READER_MODEL: ReaderModel = parseReaderModel(weights);
