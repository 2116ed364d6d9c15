import type { ListItem } from './lists.ts';
import type { Mention } from './mentions.ts';

/**
 * Entities in rank order. By default the order of first mention. When the
 * answer lists options (two or more items of one list kind each led by a
 * different brand), the list order wins: numbered items first, else bullets,
 * else table rows; only the outermost level counts, so a sub-bullet naming a
 * brand under another brand's item does not rank it. Each item belongs to
 * the first brand named in it. Brands that lead no item follow the listed
 * ones, in order of first mention. Items come in text order, whatever
 * numbers they carry, except table rows ranked by a rank column.
 */
export function rankEntities(mentions: readonly Mention[], items: readonly ListItem[]): number[] {
  const byFirst = entitiesByFirstMention(mentions);
  if (items.length === 0 || byFirst.length < 2) return byFirst;

  for (const kind of ['numbered', 'bullet', 'table'] as const) {
    const listed = listOrder(
      mentions,
      items.filter((i) => i.kind === kind),
    );
    if (listed.length >= 2) return [...listed, ...byFirst.filter((e) => !listed.includes(e))];
  }
  return byFirst;
}

/**
 * Entities in order of first mention. Mentions come in text order from
 * findMentions, and then the order in which entities first appear is already
 * that order; the (stable) sort is kept for callers passing them otherwise.
 */
function entitiesByFirstMention(mentions: readonly Mention[]): number[] {
  const first = new Map<number, number>();
  let inTextOrder = true;
  let previous = -Infinity;
  for (const m of mentions) {
    if (m.start < previous) inTextOrder = false;
    previous = m.start;
    if (!first.has(m.entity)) first.set(m.entity, m.start);
  }
  const byFirst = [...first.keys()];
  if (!inTextOrder) byFirst.sort((a, b) => (first.get(a) ?? 0) - (first.get(b) ?? 0));
  return byFirst;
}

function listOrder(mentions: readonly Mention[], items: readonly ListItem[]): number[] {
  const owners: { entity: number; indent: number; rank: number | null }[] = [];
  let m = 0;
  for (const item of items) {
    while (m < mentions.length && (mentions[m]?.start ?? 0) < item.bodyStart) m++;
    const lead = mentions[m];
    if (lead !== undefined && lead.start < item.end)
      owners.push({ entity: lead.entity, indent: item.indent, rank: item.rank });
  }
  if (owners.length === 0) return [];
  // A table's rank column decides the order when every row leading a brand has a rank (stable sort).
  if (owners.every((o) => o.rank !== null)) owners.sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
  // A loop, not Math.min(...): a long list would pass more arguments than a call takes.
  let outer = Infinity;
  for (const o of owners) outer = Math.min(outer, o.indent);
  const order: number[] = [];
  for (const o of owners) if (o.indent === outer && !order.includes(o.entity)) order.push(o.entity);
  return order;
}
