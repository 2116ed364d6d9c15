import { isCommonPhrase } from './common-words.ts';
import { fold } from './fold.ts';

/**
 * Whether a name is ambiguous (docs/analysis.md "Mentions"): one or two
 * letters or digits ("HP", "X"), or one or two words that are all
 * everyday English words ("Notion", "Best Buy"). Such a name counts only
 * where the text means the brand, and the API warns when one is saved.
 *
 * The one place the rule lives: the brand book asks it which names need
 * their context read, and the API asks it why (warnings, the names list),
 * so a new rule changes both at once. `reason` is said to customers.
 */
export interface Ambiguity {
  ambiguous: boolean;
  /** Why, in words for a customer ("an everyday English word"); null when not ambiguous. */
  reason: string | null;
}

export function ambiguityOf(name: string): Ambiguity {
  const folded = fold(name.replace(/\s+/g, ' ').trim());
  const characters = folded.replace(/[^\p{L}\p{N}]/gu, '');
  if (characters.length <= 2) {
    const letters = /^\p{L}*$/u.test(characters);
    const reason = characters.length <= 1 ? (letters ? 'a single letter' : 'a single character') : letters ? 'two letters' : 'two characters';
    return { ambiguous: true, reason };
  }
  const words = folded.split(' ').length;
  if (words <= 2 && isCommonPhrase(folded)) return { ambiguous: true, reason: words === 1 ? 'an everyday English word' : 'everyday English words' };
  return { ambiguous: false, reason: null };
}
