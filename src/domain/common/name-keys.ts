/** The comparison key of names (brand terms, categories, aliases) and prompt texts, as the unique indexes compare them. */
export const nameKey = (name: string): string => name.trim().toLowerCase();

/** Drops empty names and repeats (compared case-insensitively), keeping the first spelling and the order. */
export function uniqueNames(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of names) {
    const name = raw.trim();
    const key = nameKey(name);
    if (!name || seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out;
}
