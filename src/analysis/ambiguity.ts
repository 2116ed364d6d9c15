import { foldName } from './brand-book.ts';
import { otherSense, senseReason, type OtherSense } from './lexicon.ts';

/**
 * Whether a name is ambiguous (docs/analysis.md "Everyday-word names"):
 * it has another sense (lexicon.ts: one or two letters, a common word, a
 * weekday, a month, a person's or place's name...), so it counts only where
 * an answer means the brand, and the API warns when one is saved.
 *
 * The rule is the brand book's own (`otherSense`, which decides which names
 * are read in context); this says it to customers: `reason` is shown in
 * `warnings` and the names list ("also an everyday English word").
 */
export interface Ambiguity {
  ambiguous: boolean;
  /** Why, in words for a customer; null when not ambiguous. */
  reason: string | null;
  /** The other sense, as lexicon.ts names it; null when not ambiguous. */
  sense: OtherSense | null;
}

export function ambiguityOf(name: string): Ambiguity {
  const sense = otherSense(foldName(name));
  return { ambiguous: sense !== null, reason: sense === null ? null : senseReason(sense), sense };
}
